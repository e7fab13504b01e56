//! `radbg completions SHELL` and `radbg man`: shell completion scripts and a roff man
//! page, both generated from the clap definition so they cannot fall behind it.

use std::process::ExitCode;

use clap::CommandFactory;

#[derive(Debug, clap::Args)]
pub struct CompletionArgs {
    /// The shell to generate completions for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, clap::Args)]
pub struct ManArgs {
    /// Write radbg.1 and one page per subcommand (radbg-run.1 …) into this directory
    /// instead of printing radbg.1 on standard output.
    #[arg(long, value_name = "DIR")]
    pub out: Option<std::path::PathBuf>,
}

pub fn completions(args: &CompletionArgs) -> ExitCode {
    let mut cmd = super::Cli::command();
    // Into memory first: clap_complete panics when its writer fails, and a reader that
    // closes the pipe early (`| head`) must end radbg quietly (super::output::out).
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "radbg", &mut script);
    super::output::out(&String::from_utf8_lossy(&script));
    ExitCode::SUCCESS
}

pub fn man(args: &ManArgs) -> ExitCode {
    let r = match &args.out {
        None => man_page().and_then(|page| std::io::Write::write_all(&mut std::io::stdout(), &page)),
        Some(dir) => std::fs::create_dir_all(dir)
            .and_then(|_| clap_mangen::generate_to(super::Cli::command(), dir))
            .and_then(|_| man_page())
            .and_then(|page| std::fs::write(dir.join("radbg.1"), page)),
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        // The reader went away (`radbg man | head`): not an error.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("radbg: cannot write the man page: {e}");
            ExitCode::FAILURE
        }
    }
}

/// radbg.1: clap's sections (name, synopsis, description, options, subcommands), then
/// the `--help` epilogue's sections (EXAMPLES, FILES, EXIT STATUS) kept as written
/// (clap_mangen would reflow them into one paragraph), then COMMANDS: every command
/// of the debugger's language from `command::table`, as `help CMD` explains it.
pub fn man_page() -> std::io::Result<Vec<u8>> {
    let cmd = super::Cli::command();
    let man = clap_mangen::Man::new(cmd.clone());
    let mut w: Vec<u8> = Vec::new();
    man.render_title(&mut w)?;
    man.render_name_section(&mut w)?;
    man.render_synopsis_section(&mut w)?;
    man.render_description_section(&mut w)?;
    man.render_options_section(&mut w)?;
    man.render_subcommands_section(&mut w)?;
    w.extend_from_slice(commands_section().as_bytes());
    w.extend_from_slice(epilogue_sections(super::AFTER_LONG_HELP).as_bytes());
    man.render_version_section(&mut w)?;
    Ok(w)
}

/// Text as roff: backslashes and hyphens escaped, no line starting with a control character.
fn roff_text(s: &str) -> String {
    let t = s.replace('\\', "\\e").replace('-', "\\-");
    if t.starts_with('.') || t.starts_with('\'') { format!("\\&{t}") } else { t }
}

/// `HEADER:` blocks of the epilogue, each a section with its lines kept (no fill).
fn epilogue_sections(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        if let Some(h) = line.strip_suffix(':').filter(|h| !h.starts_with(' ') && !h.is_empty()) {
            if !out.is_empty() {
                out.push_str(".fi\n");
            }
            out.push_str(&format!(".SH \"{h}\"\n.nf\n"));
        } else {
            out.push_str(&roff_text(line));
            out.push('\n');
        }
    }
    if !out.is_empty() {
        out.push_str(".fi\n");
    }
    out
}

/// COMMANDS: the debugger's command language by category (the REPL, the TUI's `:` line
/// and .radbg sessions share it).
fn commands_section() -> String {
    use crate::command::table::COMMANDS;
    let mut out = String::from(
        ".SH COMMANDS\nThe same commands work in the REPL, on the TUI's \\fB:\\fR line and in \\fI.radbg\\fR \
         sessions; \\fBhelp\\fR lists them and \\fBhelp\\fR \\fICOMMAND\\fR explains one. Several commands \
         may share a line separated by \\fB;\\fR, and \\fB#\\fR starts a comment.\n",
    );
    let mut cats: Vec<_> = COMMANDS.iter().map(|c| c.category).collect();
    cats.sort();
    cats.dedup();
    for cat in cats {
        out.push_str(&format!(".SS {}\n", roff_text(cat.name())));
        for c in COMMANDS.iter().filter(|c| c.category == cat) {
            out.push_str(&format!(".TP\n\\fB{}\\fR\n", roff_text(c.synopsis)));
            let aliases =
                if c.aliases.is_empty() { String::new() } else { format!(" (also: {})", c.aliases.join(", ")) };
            out.push_str(&roff_text(&format!("{}{aliases}. {}", c.summary, c.help.replace('`', ""))));
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_man_page_lists_every_command_and_keeps_the_examples_as_lines() {
        let page = String::from_utf8(super::man_page().unwrap()).unwrap();
        for c in crate::command::table::COMMANDS {
            assert!(page.contains(&format!("\\fB{}", super::roff_text(c.synopsis))), "{} missing", c.name);
        }
        let ex = page.split(".SH \"EXAMPLES\"\n").nth(1).expect("an EXAMPLES section");
        assert!(ex.starts_with(".nf\n"), "examples are not filled into a paragraph");
        assert!(ex.lines().nth(1).unwrap().trim_start().starts_with("radbg"), "{ex}");
        assert!(page.contains(".SH \"EXIT STATUS\"") && page.contains(".SH COMMANDS"));
        assert!(!page.contains(".SH EXTRA"));
    }
}
