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
    clap_complete::generate(args.shell, &mut cmd, "radbg", &mut std::io::stdout());
    ExitCode::SUCCESS
}

pub fn man(args: &ManArgs) -> ExitCode {
    let cmd = super::Cli::command();
    let r = match &args.out {
        None => clap_mangen::Man::new(cmd).render(&mut std::io::stdout()),
        Some(dir) => std::fs::create_dir_all(dir).and_then(|_| clap_mangen::generate_to(cmd, dir)),
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
