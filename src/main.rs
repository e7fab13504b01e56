fn main() -> std::process::ExitCode {
    radbg::cli::main()
}
