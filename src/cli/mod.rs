//! The `radbg` command line (clap derive). One variant of [`Command`] and one file
//! per subcommand. `radbg [FILE]` opens the debugger on FILE (the embedded demo kernel
//! without one): the TUI when standard input and output are terminals, the REPL
//! otherwise or with `--repl`; `-x SESSION` replays a session headless instead.
//!
//! Owns argument parsing, file loading, choosing a front end and exit codes; the work
//! is in the library.

pub mod check;
pub mod compare;
pub mod completions;
pub mod diff_alloc;
pub mod fidelity;
pub mod fmt;
pub mod import;
pub mod output;
pub mod reduce;
pub mod replay;
pub mod run;
pub mod stream;
pub mod sweep;
pub mod why;

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::command::Session;
use crate::command::script::Recorder;
use crate::engine::settings::{self, ResolvedKnob, Setting};
use crate::engine::{AllocatorKind, RunOptions};
use crate::ir::Sm;
use crate::ir::span::SourceFile;

const LONG_ABOUT: &str = "\
radbg re-implements the register-allocation pipeline of NVIDIA ptxas 13.0 (liveness, \
ABI checks, the fat-point allocator with its NOSPILL/SPILL retries, spill code, the -v \
statistics) and lets you step through it like a program in gdb: forwards and backwards \
one event at a time, with breakpoints on a vreg's assignment, an attempt, a stage, an ABI \
warning or a failure, and panes showing the IR with assignments so far, the live set and \
pressure, a vreg's constraint nodes, the cost histograms of each decision, the allocator \
state object by offset, the attempts per class and the ABI checks.

FILE is an Ori IR file (.ori) or PTX (.ptx, or any name whose text starts with .version; \
imported). Without FILE radbg opens its \
embedded demo kernel, a loop that spills and retries.

radbg opens a full-screen terminal UI when standard input and output are terminals (it \
works on a plain 80x24 terminal over SSH, keyboard only; ? lists the keys; NO_COLOR \
turns colour off), and a line-oriented REPL otherwise or with --repl (Tab completes \
commands, vregs, knobs and breakpoints; 'help' lists the commands). With -x it replays a \
.radbg session headless and prints a transcript.";

pub(crate) const AFTER_LONG_HELP: &str = "\
EXAMPLES:
  radbg                                   the TUI on the embedded demo kernel
  radbg sessions/demo.ori --maxrregcount 24
  radbg kernel.ori --repl --record bug.radbg   REPL, every command saved to bug.radbg
  echo 'continue; stats' | radbg kernel.ori    piped commands (no prompt, no echo; an
                                          error names its line and the rest still run)
  radbg kernel.ori -x check.radbg         replay a session; exit 1 if an expect fails
  radbg replay bug.radbg --json           replay a session that loads its own kernel
  radbg run kernel.ori --knob 684=10      the whole pipeline in batch, ptxas -v lines
  radbg run kernel.ptx --json             the same for PTX, as one JSON object
  radbg check kernel.ptx kernel.ori       parse and validate (PTX by extension or content)
  radbg completions bash > /etc/bash_completion.d/radbg
  radbg man > radbg.1

FILES:
  $XDG_STATE_HOME/radbg/history (else ~/.radbg_history)   command history of the REPL and TUI

ENVIRONMENT:
  RADBG_MAX_FILE_BYTES  largest input file (default 256M); FIFOs and devices need '-'
  RADBG_MAX_REGISTERS   most registers a module may declare (default 4194304)
  RADBG_MAX_MEMORY      memory budget for the estimate made before loading (default 4G)
  NO_COLOR              turns colour off

EXIT STATUS:
  0  success
  1  an error: unreadable or invalid input, a failed expect or command in a replayed \
or piped session, a checker fault or allocation failure in 'run'
  2  bad command-line usage
  130, 143  the TUI was stopped by SIGINT or SIGTERM/SIGHUP (the terminal is restored)";

#[derive(Debug, Parser)]
#[command(
    name = "radbg",
    version,
    about = "A register-allocation debugger for GPU compilers (ptxas's allocator, step by step)",
    long_about = LONG_ABOUT,
    after_long_help = AFTER_LONG_HELP,
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// An Ori IR (.ori) or PTX (.ptx) file to debug; the embedded demo kernel when absent.
    pub file: Option<PathBuf>,
    /// Replay a .radbg session headless after opening FILE, print its transcript, and exit
    /// (status 1 when an expect fails or an error stops it).
    #[arg(short = 'x', long = "execute", value_name = "SESSION")]
    pub execute: Option<PathBuf>,
    /// Print command output as JSON lines (with -x and in the REPL).
    #[arg(long)]
    pub json: bool,
    /// Use the line-oriented REPL even on a terminal.
    #[arg(long)]
    pub repl: bool,
    /// Append every command typed in the REPL or TUI to FILE, a .radbg session that
    /// replays to the same state (radbg -x FILE, or radbg replay FILE when it loads a file).
    /// An existing FILE is appended to, never truncated; FILE may not be the kernel being
    /// debugged (nor a link to it).
    #[arg(long, value_name = "FILE", conflicts_with = "execute")]
    pub record: Option<PathBuf>,
    #[command(flatten)]
    pub pipeline: PipelineArgs,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Parse and validate Ori IR or import PTX files; diagnostics go to stderr, exit status 1 on any error.
    Check(check::Args),
    /// Print an Ori IR file in canonical form.
    Fmt(fmt::Args),
    /// Import a PTX file: print it as Ori IR (diagnostics to stderr, exit status 1 on errors).
    Import(import::Args),
    /// Run the whole pipeline in batch: attempts per class and ptxas's `-v` lines.
    Run(run::Args),
    /// Replay a `.radbg` session file headless and print its transcript.
    Replay(replay::Args),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions(completions::CompletionArgs),
    /// Print the man page (roff), or write one per subcommand with --out.
    Man(completions::ManArgs),
    /// Regenerate the TUI screenshots (SVG, and PNG with --png) from the real rendering.
    #[command(hide = true)]
    Screenshots(ScreenshotArgs),
    /// Run the fat-point and Chaitin-Briggs allocators on the same kernels and diff them.
    DiffAlloc(diff_alloc::Args),
    /// Explain every function's register count (and failures); --fail-on-spill gates CI.
    Why(why::Args),
    /// Sweep --maxrregcount or a knob: registers, spill bytes, attempts, occupancy, knees.
    Sweep(sweep::Args),
    /// Compare radbg's -v figures with the real ptxas's on a PTX file.
    Compare(compare::Args),
    /// Compare radbg with the real ptxas 13.0.88 on the corpus: register error, spill detection, times.
    Fidelity(fidelity::Args),
    /// Shrink a kernel to a small one that still shows a behaviour (fails, spills, registers > N ...).
    Reduce(reduce::Args),
}

#[derive(Debug, clap::Args)]
pub struct ScreenshotArgs {
    /// Where to write the images.
    #[arg(long, default_value = "screenshots")]
    pub out: PathBuf,
    /// Where the scenario kernels are.
    #[arg(long, default_value = "sessions")]
    pub sessions: PathBuf,
    /// Also convert each SVG to PNG with rsvg-convert.
    #[arg(long)]
    pub png: bool,
}

/// Options that change a pipeline run (shared by `run`, the debugger and `why`). Each
/// value is parsed by `engine::settings`, the parser `set` uses, so a flag and its
/// `set` command take and refuse the same values; [`PipelineArgs::settings`] turns
/// them into the typed settings a session applies and a recording writes out.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct PipelineArgs {
    /// Target architecture, overriding the file's `.target` (e.g. sm_80).
    #[arg(long, value_name = "SM", value_parser = settings::sm)]
    pub sm: Option<Sm>,
    /// Register budget, as ptxas's --maxrregcount.
    #[arg(long, value_name = "N", value_parser = settings::maxrregcount)]
    pub maxrregcount: Option<u32>,
    /// Set a knob: NAME=VALUE or INDEX=VALUE (repeatable).
    #[arg(long = "knob", value_name = "NAME=VALUE", value_parser = settings::knob)]
    pub knobs: Vec<ResolvedKnob>,
    /// Run dead-code elimination before allocation.
    #[arg(long)]
    pub dce: bool,
    /// The register allocator: ptxas's fat-point allocator (default) or CICC's
    /// Chaitin-Briggs graph colouring (seed 002).
    #[arg(long, value_name = "fatpoint|briggs", value_parser = AllocatorParser)]
    pub allocator: Option<AllocatorKind>,
    /// Switch a pre-allocation stage of imported PTX off (repeatable; `set stage NAME off`).
    #[arg(long = "disable-stage", value_name = "NAME", value_parser = settings::stage)]
    pub disable_stage: Vec<&'static str>,
    /// Where the CUDA files a PTX `.file` table names are (the Source pane, `list`);
    /// by default the name as written, then the PTX file's directory.
    #[arg(long = "source-dir", value_name = "DIR")]
    pub source_dir: Option<PathBuf>,
}

impl PipelineArgs {
    /// The flags as typed settings, in the order they apply and a recording writes
    /// them (the default allocator is left out: it is not a change).
    pub fn settings(&self) -> Vec<Setting> {
        let mut v = Vec::new();
        v.extend(self.sm.clone().map(Setting::Sm));
        v.extend(self.maxrregcount.map(Setting::MaxRegCount));
        v.extend(self.knobs.iter().cloned().map(Setting::Knob));
        if self.dce {
            v.push(Setting::Dce(true));
        }
        v.extend(self.disable_stage.iter().map(|&st| Setting::Stage(st, false)));
        v.extend(self.allocator.filter(|a| *a != AllocatorKind::default()).map(Setting::Allocator));
        v
    }
}

/// `--allocator`: [`settings::allocator`], with the names clap's help and the shell
/// completions list.
#[derive(Clone)]
struct AllocatorParser;

impl clap::builder::TypedValueParser for AllocatorParser {
    type Value = AllocatorKind;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<AllocatorKind, clap::Error> {
        clap::builder::StringValueParser::new().try_map(|s| settings::allocator(&s)).parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(AllocatorKind::NAMES.iter().map(|n| clap::builder::PossibleValue::new(*n))))
    }
}

/// Loads a module and turns pipeline arguments into run options; diagnostics go to
/// stderr and an error gives the exit code to return.
pub fn load_for_pipeline(
    path: &Path,
    args: &PipelineArgs,
) -> Result<(crate::ir::Module, crate::engine::RunOptions), ExitCode> {
    let (module, imported) = load_module(path)?;
    let mut opts = run_options(args);
    opts.imported = imported;
    Ok((module, opts))
}

/// The module of `path` (its warnings printed) and whether it was imported from PTX;
/// [`load_for_pipeline`] without the run options.
pub fn load_module(path: &Path) -> Result<(crate::ir::Module, bool), ExitCode> {
    let loaded = crate::load::load_path(path).map_err(|msg| {
        eprint!("{msg}");
        if !msg.ends_with('\n') {
            eprintln!();
        }
        ExitCode::FAILURE
    })?;
    eprint!("{}", loaded.warnings);
    Ok((loaded.module, loaded.imported))
}

/// The run options the pipeline arguments make: each setting applied in turn (clap
/// has checked every value already).
pub fn run_options(args: &PipelineArgs) -> RunOptions {
    let mut opts = RunOptions::default();
    for s in args.settings() {
        // Issue 24: a knob radbg does not model is accepted with a note, never silently.
        if let Setting::Knob(k) = &s
            && let Some(n) = k.info.not_modelled_note()
        {
            eprintln!("radbg: note: --knob {k}: {n}");
        }
        opts.apply(&s);
    }
    // A knob that acts only with another one says so when that one is not set with it.
    let knobs = crate::engine::settings::knobs_in_force(&[], &opts);
    for s in args.settings() {
        if let Setting::Knob(k) = &s
            && let Some(n) = k.info.needs_note(|name| knobs.int(name))
        {
            eprintln!("radbg: note: --knob {k}: {n}");
        }
    }
    opts
}

/// Entry point of the binary.
pub fn main() -> ExitCode {
    quiet_on_closed_stdout();
    run(Cli::parse())
}

/// A reader that goes away (`radbg … | head`) ends radbg quietly with status 0, as
/// `head` users expect, for every subcommand: `println!` panics when standard output is
/// a closed pipe (Rust ignores SIGPIPE), and this hook turns exactly that panic into an
/// exit; any other panic is reported as before.
fn quiet_on_closed_stdout() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let msg = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if msg.starts_with("failed printing to stdout") && msg.contains("Broken pipe") {
            std::process::exit(0);
        }
        previous(info);
    }));
}

/// Runs parsed arguments.
pub fn run(cli: Cli) -> ExitCode {
    match &cli.command {
        Some(Command::Check(args)) => check::run(args),
        Some(Command::Fmt(args)) => fmt::run(args),
        Some(Command::Import(args)) => import::run(args),
        Some(Command::Run(args)) => run::run(args),
        Some(Command::Replay(args)) => replay::run(args),
        Some(Command::DiffAlloc(args)) => diff_alloc::run(args),
        Some(Command::Why(args)) => why::run(args),
        Some(Command::Sweep(args)) => sweep::run(args),
        Some(Command::Compare(args)) => compare::run(args),
        Some(Command::Fidelity(args)) => fidelity::run(args),
        Some(Command::Reduce(args)) => reduce::run(args),
        Some(Command::Completions(args)) => completions::completions(args),
        Some(Command::Man(args)) => completions::man(args),
        Some(Command::Screenshots(args)) => screenshots(args),
        None => debug(&cli),
    }
}

fn screenshots(args: &ScreenshotArgs) -> ExitCode {
    match crate::ui::tui::shots::write_all(&args.out, &args.sessions, args.png) {
        Ok(files) => {
            for f in files {
                println!("wrote {f}");
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("radbg: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Opens FILE (or the demo) in a session with the command-line options applied.
pub fn open_session(file: Option<&Path>, pipeline: &PipelineArgs) -> Result<Session, String> {
    let mut s = Session::new();
    for setting in pipeline.settings() {
        s.apply(&setting);
    }
    s.source_dir = pipeline.source_dir.clone();
    match file {
        Some(p) => {
            let loaded = crate::load::load_path(p)
                .map_err(|e| if e.starts_with("cannot read") { format!("radbg: {e}") } else { e })?;
            eprint!("{}", loaded.warnings);
            s.open_loaded(loaded, &p.display().to_string());
        }
        None => {
            let file = SourceFile::new(crate::demo::DEMO_NAME, crate::demo::DEMO);
            let loaded = crate::load::load_ori(&file)?;
            s.open(loaded.module, crate::demo::DEMO_NAME, false);
        }
    }
    Ok(s)
}

/// The `load` line a recording starts with: FILE as given when it also resolves from
/// the recording's directory, else its absolute path (so the recording replays from
/// anywhere on this machine).
pub fn recorded_load_path(file: &Path, record: &Path) -> String {
    let dir = record.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    };
    if file.is_relative() && same(&dir.join(file), file) {
        return file.display().to_string();
    }
    file.canonicalize().unwrap_or_else(|_| file.to_path_buf()).display().to_string()
}

/// Creates the recording: a `load` line (or a note for the demo kernel) and the
/// command-line options written out as the `set` commands they are, so it replays to
/// the same state.
pub fn start_recording(path: &Path, file: Option<&Path>, pipeline: &PipelineArgs) -> std::io::Result<Recorder> {
    let load = file.map(|f| recorded_load_path(f, path));
    let mut r = Recorder::create_guarded(path, load.as_deref(), file.as_slice())?;
    if file.is_none() {
        r.record("# recorded on the embedded demo kernel: replay with `radbg -x THIS_FILE`")?;
    }
    for setting in pipeline.settings() {
        r.record(&setting.to_string())?;
    }
    Ok(r)
}

/// `radbg [FILE]`: the TUI, the REPL, or a headless replay.
fn debug(cli: &Cli) -> ExitCode {
    let file = cli.file.as_deref();
    if let Some(session) = &cli.execute {
        return match file {
            Some(f) => replay::replay_file(Some(f), session, cli.json, &cli.pipeline),
            None => match open_session(None, &cli.pipeline) {
                Ok(s) => replay::replay_in(s, session, cli.json),
                Err(e) => {
                    eprintln!("radbg: {e}");
                    ExitCode::FAILURE
                }
            },
        };
    }
    let session = match open_session(file, &cli.pipeline) {
        Ok(s) => s,
        Err(e) => {
            eprint!("{e}");
            if !e.ends_with('\n') {
                eprintln!();
            }
            return ExitCode::FAILURE;
        }
    };
    let recorder = match &cli.record {
        Some(p) => match start_recording(p, file, &cli.pipeline) {
            Ok(r) => Some(r),
            Err(e) => {
                eprintln!("radbg: cannot record to {}: {e}", p.display());
                return ExitCode::FAILURE;
            }
        },
        None => None,
    };
    let name = session.file.clone().unwrap_or_default();
    let tty = std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    if cli.repl || !tty {
        let banner = format!(
            "radbg {} on {name}: 'help' lists the commands, Tab completes, Ctrl-D leaves",
            env!("CARGO_PKG_VERSION")
        );
        let opts = crate::ui::repl::ReplOptions {
            json: cli.json,
            recorder,
            history: crate::ui::history_path(),
            banner: Some(banner),
        };
        return crate::ui::repl::run(session, opts);
    }
    let mut app = crate::ui::tui::App::new(session, crate::ui::tui::Theme::from_env());
    app.recorder = recorder;
    app.push_log(
        crate::ui::tui::app::LogKind::Output,
        format!(
            "radbg {} on {name} · s steps, c continues, : types a command, ? lists every key",
            env!("CARGO_PKG_VERSION")
        ),
    );
    crate::ui::tui::run(app, crate::ui::history_path())
}

/// Reads a file (or standard input for `-`) as UTF-8, reporting where it is not.
pub fn load(path: &Path) -> Result<SourceFile, String> {
    let name = path.display().to_string();
    let bytes = crate::load::read_input(path, &name).map_err(|e| format!("radbg: {e}"))?;
    SourceFile::from_vec(if name == "-" { "<stdin>".to_string() } else { name }, bytes).map_err(|e| e.render())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::parse::{Command as Cmd, parse_line};

    /// One parser: the flags, written out as a recording writes them and read back by
    /// the command parser, are the same typed settings, and applying either gives the
    /// same run options.
    #[test]
    fn flags_and_their_recorded_set_commands_are_the_same_settings() {
        let cli = Cli::try_parse_from([
            "radbg",
            "k.ptx",
            "--sm",
            "sm_80",
            "--maxrregcount",
            "40",
            "--knob",
            "684=80",
            "--knob",
            "RegAllocNumNonSpillTrials = 2",
            "--dce",
            "--disable-stage",
            "sink",
            "--allocator",
            "cicc",
        ])
        .expect("the flags parse");
        let from_flags = cli.pipeline.settings();
        let recorded: Vec<String> = from_flags.iter().map(|s| s.to_string()).collect();
        assert_eq!(
            recorded,
            [
                "set sm sm_80",
                "set maxrregcount 40",
                "set knob 684=80",
                "set knob RegAllocNumNonSpillTrials=2",
                "set dce on",
                "set stage sink off",
                "set allocator briggs",
            ]
        );
        let read_back: Vec<Setting> = recorded
            .iter()
            .flat_map(|l| parse_line(l).expect("a recorded line parses"))
            .map(|c| match c {
                Cmd::Set(s) => s,
                other => panic!("not a setting: {other:?}"),
            })
            .collect();
        assert_eq!(read_back, from_flags);
        let mut replayed = RunOptions::default();
        for s in &read_back {
            replayed.apply(s);
        }
        assert_eq!(replayed, run_options(&cli.pipeline));
        assert_eq!(replayed.knobs[0].info.index, Some(crate::knobs::THRESHOLD_DISCARD));
        assert_eq!(replayed.knobs[0].value, crate::ir::KnobValue::Int(80));
    }

    /// `--allocator`'s value name and possible values are the allocator list.
    #[test]
    fn the_allocator_flag_lists_the_allocators() {
        use clap::CommandFactory;
        let cmd = Cli::command();
        let arg = cmd.get_arguments().find(|a| a.get_id() == "allocator").expect("--allocator");
        let names: Vec<String> = arg.get_possible_values().iter().map(|v| v.get_name().to_string()).collect();
        assert_eq!(names, AllocatorKind::NAMES);
        assert_eq!(arg.get_value_names().map(|v| v[0].to_string()), Some(AllocatorKind::NAMES.join("|")));
    }

    /// A flag's value is refused by the parser `set` uses, naming the flag.
    #[test]
    fn bad_flag_values_name_the_flag() {
        for (flag, value, words) in [
            ("--knob", "684=true", "knob RegAllocThresholdForDiscardConflicts takes an int value, not 'true'"),
            ("--maxrregcount", "0", "maxrregcount must be at least 1"),
            ("--sm", "sm_9", "target 'sm_9' out of range"),
            ("--allocator", "linear", "unknown allocator 'linear'"),
            ("--disable-stage", "snk", "unknown stage 'snk' (did you mean 'sink'?)"),
        ] {
            let e = Cli::try_parse_from(["radbg", "k.ptx", flag, value]).expect_err(flag);
            let text = e.to_string();
            assert!(text.contains(&format!("invalid value '{value}' for '{flag}")) && text.contains(words), "{text}");
            assert_eq!(e.exit_code(), 2);
        }
    }
}
