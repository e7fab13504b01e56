//! Writing to standard output from the command line: a closed pipe (`radbg run k.ori |
//! head`) ends the program quietly instead of panicking.

use std::io::Write;

/// Writes `text` to standard output; exits with status 0 if the reader went away.
pub fn out(text: &str) {
    let mut o = std::io::stdout().lock();
    if let Err(e) = o.write_all(text.as_bytes()).and_then(|_| o.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("radbg: cannot write to standard output: {e}");
        std::process::exit(1);
    }
}

/// Writes `text` and a newline.
pub fn outln(text: &str) {
    out(&format!("{text}\n"));
}
