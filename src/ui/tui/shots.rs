//! Screenshot scenarios: a kernel, a terminal size, and the keys and command lines a
//! person would type, replayed on the real `App` and drawn into a `TestBackend`. The
//! `radbg screenshots` command writes them as SVG (and PNG when `rsvg-convert` is
//! installed); the TUI snapshot tests reuse them.

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;

use crate::command::Session;
use crate::ui::tui::app::App;
use crate::ui::tui::input::Key;
use crate::ui::tui::theme::Theme;

/// One thing a person does.
#[derive(Clone, Copy, Debug)]
pub enum Step {
    /// A command typed on the command line (`:` … Enter).
    Cmd(&'static str),
    /// A key pressed on the main screen.
    Key(Key),
}

/// A screenshot scenario.
#[derive(Clone, Debug)]
pub struct Shot {
    pub name: &'static str,
    /// What the picture shows (README caption).
    pub caption: &'static str,
    pub width: u16,
    pub height: u16,
    pub mono: bool,
    /// A kernel under `sessions/`; `None` is the embedded demo.
    pub file: Option<&'static str>,
    pub steps: &'static [Step],
}

use Step::{Cmd, Key as K};

/// The scenarios, in README order.
pub fn all() -> Vec<Shot> {
    vec![
        Shot {
            name: "demo-mid-attempt",
            caption: "The demo kernel in its first SPILL attempt: %x3 just assigned, its histograms and constraints",
            width: 200,
            height: 60,
            mono: false,
            file: None,
            steps: &[Cmd("break assign %x3 if attempt > 0"), K(Key::Ch('c'))],
        },
        Shot {
            name: "demo-120x40",
            caption: "The same moment on a 120×40 terminal: less used panes share a tabbed slot",
            width: 120,
            height: 40,
            mono: false,
            file: None,
            steps: &[Cmd("break assign %x3 if attempt > 0"), K(Key::Ch('c')), K(Key::Ch('3'))],
        },
        Shot {
            name: "alloc-fail",
            caption: "sessions/alloc_fail.ori with maxrregcount 12: every SPILL retry over budget, allocation fails",
            width: 120,
            height: 40,
            mono: false,
            file: Some("alloc_fail.ori"),
            steps: &[Cmd("set maxrregcount 12"), Cmd("break fail"), K(Key::Ch('c')), K(Key::Ch('6'))],
        },
        Shot {
            name: "diff-attempts",
            caption: "diff attempts R 0 1 after the run: what the SPILL retry changed, in the zoomed log",
            width: 120,
            height: 40,
            mono: false,
            file: None,
            steps: &[K(Key::Ch('>')), Cmd("diff attempts R 0 1"), K(Key::Ch('8')), K(Key::Ch('z')), K(Key::Ch('g'))],
        },
        Shot {
            name: "briggs-colour",
            caption: "sessions/briggs_k15.ori under `set allocator briggs`: %s12 coloured, its neighbours and colour availability, the iterations",
            width: 200,
            height: 60,
            mono: false,
            file: Some("briggs_k15.ori"),
            steps: &[Cmd("set allocator briggs"), Cmd("break assign %s12"), K(Key::Ch('c'))],
        },
        Shot {
            name: "ssh-80x24-mono",
            caption: "A plain 80×24 SSH terminal with NO_COLOR: panes collapse into tabs",
            width: 80,
            height: 24,
            mono: true,
            file: None,
            steps: &[Cmd("break assign %x3"), K(Key::Ch('c'))],
        },
        Shot {
            name: "why-pane",
            caption: "The Why pane (9) follows the cursor: at %tap2's needs-spill decision it explains the spill, back to the kernel's lines",
            width: 120,
            height: 40,
            mono: false,
            file: None,
            steps: &[Cmd("break assign %tap2"), K(Key::Ch('c')), K(Key::Ch('9')), K(Key::Ch('z'))],
        },
        Shot {
            name: "why-sweep",
            caption: "`sweep` at the end of the demo run: the Why pane's registers answer and the sweep chart, current budget marked",
            width: 120,
            height: 40,
            mono: false,
            file: None,
            steps: &[K(Key::Ch('>')), Cmd("sweep maxrregcount 16..80:8"), K(Key::Ch('9')), K(Key::Ch('z'))],
        },
        Shot {
            name: "source-pane",
            caption: "The Source pane (0) on sessions/hotspot.ptx (NVRTC -lineinfo form) in the SPILL attempt: each hotspot.cu line's live registers at its peak, spill stores/reloads, the values it keeps alive at the peak",
            width: 120,
            height: 40,
            mono: false,
            file: Some("hotspot.ptx"),
            // 10 is below ptxas's floor of 24 (rule `floor`): switched off to study it.
            steps: &[
                Cmd("set stage floor off"),
                Cmd("set maxrregcount 10"),
                Cmd("break assign %f12 if attempt > 0"),
                K(Key::Ch('c')),
                K(Key::Ch('0')),
                K(Key::Ch('z')),
            ],
        },
    ]
}

/// An app on the scenario's kernel (no recording, no history).
pub fn app_for(shot: &Shot, sessions: &std::path::Path) -> Result<App, String> {
    let mut s = Session::new();
    // `sessions/NAME` resolves from the sessions directory's parent (the CUDA files a
    // PTX `.file` names are found beside it).
    if let Some(root) = sessions.parent() {
        s.base = root.to_path_buf();
    }
    match shot.file {
        None => {
            let file = crate::ir::span::SourceFile::from_bytes(
                crate::demo::DEMO_NAME.to_string(),
                crate::demo::DEMO.as_bytes(),
            )
            .map_err(|e| e.render())?;
            let loaded = crate::load::load_ori(&file)?;
            s.open(loaded.module, crate::demo::DEMO_NAME, false);
        }
        Some(f) => {
            let path = sessions.join(f);
            let loaded = crate::load::load_path(&path)?;
            s.open_loaded(loaded, &format!("sessions/{f}"));
        }
    }
    let theme = if shot.mono { Theme::mono() } else { Theme::colour() };
    Ok(App::new(s, theme))
}

/// Replays the steps.
pub fn play(app: &mut App, steps: &[Step]) {
    for st in steps {
        match st {
            Step::Cmd(line) => app.type_command(line),
            Step::Key(k) => app.press(*k),
        }
    }
}

/// Draws `app` into a fresh buffer of the given size.
pub fn draw(app: &mut App, width: u16, height: u16) -> Buffer {
    let mut t = Terminal::new(TestBackend::new(width, height)).expect("test backend");
    crate::ui::tui::render(&mut t, app).expect("test backend draws");
    t.backend().buffer().clone()
}

/// The scenario's final frame.
pub fn render_shot(shot: &Shot, sessions: &std::path::Path) -> Result<Buffer, String> {
    let mut app = app_for(shot, sessions)?;
    play(&mut app, shot.steps);
    Ok(draw(&mut app, shot.width, shot.height))
}

/// Writes every scenario as `NAME.svg` into `out` (and `NAME.png` with `png` when
/// `rsvg-convert` is available). Returns the files written.
pub fn write_all(out: &std::path::Path, sessions: &std::path::Path, png: bool) -> Result<Vec<String>, String> {
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let mut written = Vec::new();
    for shot in all() {
        let buf = render_shot(&shot, sessions)?;
        let svg = out.join(format!("{}.svg", shot.name));
        std::fs::write(&svg, crate::ui::tui::snapshot::to_svg(&buf))
            .map_err(|e| format!("cannot write {}: {e}", svg.display()))?;
        written.push(svg.display().to_string());
        if png {
            let png_path = out.join(format!("{}.png", shot.name));
            let status = std::process::Command::new("rsvg-convert")
                .arg("-o")
                .arg(&png_path)
                .arg(&svg)
                .status()
                .map_err(|e| format!("cannot run rsvg-convert (install librsvg2-bin, or drop --png): {e}"))?;
            if !status.success() {
                return Err(format!("rsvg-convert failed on {}", svg.display()));
            }
            written.push(png_path.display().to_string());
        }
    }
    written.extend(write_sweep_chart(out, sessions, png)?);
    Ok(written)
}

/// The example sweep chart: `radbg sweep sessions/demo.ori --maxrregcount 16..128 --svg`,
/// as `sweep-demo.svg` (and `.png`), so the README shows what the code draws.
pub fn write_sweep_chart(out: &std::path::Path, sessions: &std::path::Path, png: bool) -> Result<Vec<String>, String> {
    let svg = sweep_chart(sessions)?;
    let path = out.join("sweep-demo.svg");
    std::fs::write(&path, svg).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    let mut written = vec![path.display().to_string()];
    if png {
        let png_path = out.join("sweep-demo.png");
        let status = std::process::Command::new("rsvg-convert")
            .arg("-o")
            .arg(&png_path)
            .arg(&path)
            .status()
            .map_err(|e| format!("cannot run rsvg-convert (install librsvg2-bin, or drop --png): {e}"))?;
        if !status.success() {
            return Err(format!("rsvg-convert failed on {}", path.display()));
        }
        written.push(png_path.display().to_string());
    }
    Ok(written)
}

/// The SVG of the example sweep chart.
pub fn sweep_chart(sessions: &std::path::Path) -> Result<String, String> {
    let loaded = crate::load::load_path(&sessions.join("demo.ori"))?;
    let opts = crate::engine::RunOptions { imported: loaded.imported, ..Default::default() };
    let axis = crate::why::sweep::Axis::MaxRegCount;
    let values: Vec<i64> = (16..=128).collect();
    let rows = crate::why::sweep::run(&loaded.module, &opts, &axis, &values, 2)?;
    Ok(crate::why::sweep::svg(&rows, &axis))
}
