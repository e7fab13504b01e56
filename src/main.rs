//! The `radbg` binary: everything is in the library, behind `radbg::cli::main`.

fn main() -> std::process::ExitCode {
    radbg::cli::main()
}
