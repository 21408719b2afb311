//! The `lodge` binary: everything is in the library; this only hands over to the CLI.

fn main() -> std::process::ExitCode {
    lodge::cli::main()
}
