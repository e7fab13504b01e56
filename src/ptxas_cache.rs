//! A persistent on-disk cache of the real ptxas's answers (issue 29): what `ptxas -v`
//! printed, and whether it accepted the PTX, keyed by a hash of (the ptxas's
//! `--version`, its arguments, the PTX text). `radbg reduce`, `compare` and the fidelity
//! gate share it, so a reduction started again, or after a `compare` or a gate run on
//! the same file, does not run ptxas again on a text it has seen (ptxas takes minutes on
//! the largest gate files).
//!
//! Where: `$RADBG_PTXAS_CACHE` (`off` or empty: no cache), else `~/.cache/radbg/ptxas`.
//! Safe against partial and corrupt entries: an entry is written to a temporary file
//! and renamed into place, and read back only when its header names the same ptxas,
//! arguments and text length and its body has the length the header says; anything
//! else is a miss. Bounded: past [`MAX_BYTES`] (or `$RADBG_PTXAS_CACHE_MB`) the oldest
//! entries go until three quarters remain. Only answers from a ptxas that exited by
//! itself are kept (not one killed by a signal or that could not start).
//!
//! The hash is FNV-1a on 128 bits, spelled out here so the key stays the same across
//! Rust releases (std's hasher promises no such thing). Sits with the helpers: it knows
//! nothing of radbg; callers parse the `-v` text themselves.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

/// The cache's size bound, in bytes, unless `$RADBG_PTXAS_CACHE_MB` says otherwise.
pub const MAX_BYTES: u64 = 256 << 20;

/// The first line of every entry (a format change makes old entries misses).
const MAGIC: &str = "radbg-ptxas-cache 1";

/// What stands for the input file's path in a kept answer (ptxas names the file in its
/// errors; the temporary name would differ from run to run).
pub const INPUT: &str = "<input.ptx>";

/// What ptxas answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// ptxas exited with status 0.
    pub ok: bool,
    /// Its standard output, then its standard error.
    pub text: String,
}

/// The cache directory: `$RADBG_PTXAS_CACHE` (`None` when it is `off` or empty), else
/// `$HOME/.cache/radbg/ptxas`.
pub fn dir() -> Option<PathBuf> {
    match std::env::var_os("RADBG_PTXAS_CACHE") {
        Some(v) if v.is_empty() || v == "off" => None,
        Some(v) => Some(PathBuf::from(v)),
        None => std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/radbg/ptxas")),
    }
}

/// FNV-1a, 128 bits, over `parts` (each followed by a 0xff separator, which no UTF-8
/// text contains).
pub fn hash(parts: &[&[u8]]) -> u128 {
    const OFFSET: u128 = 0x6c62272e07bb014262b821756295c58d;
    const PRIME: u128 = 0x0000000001000000000000000000013B;
    let mut h = OFFSET;
    for p in parts {
        for &b in p.iter().chain(std::iter::once(&0xffu8)) {
            h ^= u128::from(b);
            h = h.wrapping_mul(PRIME);
        }
    }
    h
}

/// An executable and what identifies it (`None`: it cannot be run).
type Known = (String, Option<String>);

/// What identifies a ptxas: its `--version` text (asked once per executable and
/// process). `None` when it cannot be run.
pub fn identity(exe: &str) -> Option<String> {
    static SEEN: OnceLock<Mutex<Vec<Known>>> = OnceLock::new();
    let seen = SEEN.get_or_init(|| Mutex::new(Vec::new()));
    if let Ok(v) = seen.lock()
        && let Some((_, id)) = v.iter().find(|(e, _)| e == exe)
    {
        return id.clone();
    }
    let id = Command::new(exe)
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().replace('\n', " "));
    if let Ok(mut v) = seen.lock() {
        v.push((exe.to_string(), id.clone()));
    }
    id
}

/// The arguments radbg gives ptxas for a target and budget, besides the input and output
/// paths (the part of the key that says how it was run).
pub fn args(sm: &str, maxrregcount: Option<u32>) -> Vec<String> {
    let mut a = vec!["-v".to_string(), format!("-arch={sm}")];
    if let Some(n) = maxrregcount {
        a.push(format!("--maxrregcount={n}"));
    }
    a
}

/// An entry's place and header lines for (`id`, `args`, `ptx`).
fn entry(dir: &Path, id: &str, args: &[String], ptx: &str) -> (PathBuf, String) {
    let joined = args.join(" ");
    let h = hash(&[id.as_bytes(), joined.as_bytes(), ptx.as_bytes()]);
    let head = format!("{MAGIC}\nptxas {id}\nargs {joined}\nbytes {}\n", ptx.len());
    (dir.join(format!("{h:032x}.txt")), head)
}

/// The cached answer of ptxas `exe` with `args` on `ptx`, when there is a sound one.
pub fn lookup(exe: &str, args: &[String], ptx: &str) -> Option<Answer> {
    read(&dir()?, &identity(exe)?, args, ptx)
}

fn read(dir: &Path, id: &str, args: &[String], ptx: &str) -> Option<Answer> {
    let (path, head) = entry(dir, id, args, ptx);
    let data = std::fs::read_to_string(&path).ok()?;
    let rest = data.strip_prefix(&head)?;
    let (status, rest) = rest.split_once('\n')?;
    let ok = match status {
        "status ok" => true,
        "status failed" => false,
        _ => return None,
    };
    let (len, body) = rest.split_once('\n')?;
    let len: usize = len.strip_prefix("output ")?.parse().ok()?;
    (body.len() == len).then(|| Answer { ok, text: body.to_string() })
}

/// Keeps `answer` for (`exe`, `args`, `ptx`); silently does nothing when the cache is
/// off or cannot be written (the cache only saves time).
pub fn store(exe: &str, args: &[String], ptx: &str, answer: &Answer) {
    let (Some(dir), Some(id)) = (dir(), identity(exe)) else { return };
    store_as(&dir, &id, args, ptx, answer);
}

fn store_as(dir: &Path, id: &str, args: &[String], ptx: &str, answer: &Answer) {
    static SEQ: AtomicU64 = AtomicU64::new(0);
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let (path, head) = entry(dir, id, args, ptx);
    let status = if answer.ok { "ok" } else { "failed" };
    let data = format!("{head}status {status}\noutput {}\n{}", answer.text.len(), answer.text);
    let n = SEQ.fetch_add(1, Ordering::Relaxed);
    let tmp = dir.join(format!(".tmp-{}-{n}", std::process::id()));
    if std::fs::write(&tmp, data).is_ok() && std::fs::rename(&tmp, &path).is_ok() {
        trim(dir);
    } else {
        let _ = std::fs::remove_file(&tmp);
    }
}

/// Runs ptxas `exe` with `args`, the PTX `ptx` (written to a temporary file of its own)
/// and an output file, or answers from the cache. `Err` when ptxas cannot be run at all.
pub fn run(exe: &str, args: &[String], ptx: &str) -> Result<Answer, String> {
    if let Some(a) = lookup(exe, args, ptx) {
        return Ok(a);
    }
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let n = SEQ.fetch_add(1, Ordering::Relaxed);
    let tmp = std::env::temp_dir();
    let stem = format!("radbg-ptxas-{}-{n}", std::process::id());
    let input = tmp.join(format!("{stem}.ptx"));
    let output = tmp.join(format!("{stem}.cubin"));
    std::fs::write(&input, ptx).map_err(|e| format!("cannot write {}: {e}", input.display()))?;
    let o = Command::new(exe).args(args).arg(&input).arg("-o").arg(&output).output();
    let _ = std::fs::remove_file(&input);
    let _ = std::fs::remove_file(&output);
    let o = o.map_err(|e| format!("cannot run {exe}: {e}"))?;
    let text = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    let answer = Answer { ok: o.status.success(), text: text.replace(&input.display().to_string(), INPUT) };
    // A ptxas killed by a signal (out of memory, a user's Ctrl-C) said nothing about the text.
    if o.status.code().is_some() {
        store(exe, args, ptx, &answer);
    }
    Ok(answer)
}

/// Keeps what a corpus or gate build logged (`DIR/log/STEM.BUDGET.ptxas`, ptxas's own
/// words from `ptxas -v --gpu-name SM FILE -o /dev/null [--maxrregcount N]`, run by the
/// ptxas at `DIR/root/nvidia/cu13/bin/ptxas`) for the PTX file `DIR/ptx/FILE` whose text
/// is `ptx`, as that ptxas's answer at `sm` and `maxrregcount` — so a `reduce` or
/// `compare` after a fidelity run does not run ptxas again on a whole gate file. Only a
/// log newer than its PTX file and that reports compiled functions with no error is
/// kept, and only when the cache does not have the answer yet.
pub fn seed_from_build_log(dir: &Path, file: &str, ptx: &str, sm: &str, maxrregcount: Option<u32>) {
    let Some(cache) = self::dir() else { return };
    let exe = dir.join("root/nvidia/cu13/bin/ptxas");
    if !exe.exists() {
        return;
    }
    let stem = file.strip_suffix(".ptx").unwrap_or(file);
    let budget = maxrregcount.map_or("default".to_string(), |n| n.to_string());
    let log = dir.join("log").join(format!("{stem}.{budget}.ptxas"));
    let newer = |a: &Path, b: &Path| -> Option<bool> {
        Some(std::fs::metadata(a).ok()?.modified().ok()? >= std::fs::metadata(b).ok()?.modified().ok()?)
    };
    if newer(&log, &dir.join("ptx").join(file)) != Some(true) {
        return;
    }
    let Ok(text) = std::fs::read_to_string(&log) else { return };
    let clean =
        text.contains("Used ") && !text.contains("error") && !text.contains("fatal") && !text.contains("timed out");
    let Some(id) = identity(&exe.display().to_string()) else { return };
    let args = args(sm, maxrregcount);
    if clean && read(&cache, &id, &args, ptx).is_none() {
        store_as(&cache, &id, &args, ptx, &Answer { ok: true, text });
    }
}

/// The size bound: `$RADBG_PTXAS_CACHE_MB` megabytes, else [`MAX_BYTES`].
fn max_bytes() -> u64 {
    std::env::var("RADBG_PTXAS_CACHE_MB").ok().and_then(|s| s.parse::<u64>().ok()).map_or(MAX_BYTES, |m| m << 20)
}

/// Deletes the oldest entries (by modification time, then name) while the cache holds
/// more than its bound, down to three quarters of it.
fn trim(dir: &Path) {
    trim_to(dir, max_bytes());
}

fn trim_to(dir: &Path, max: u64) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut files: Vec<(std::time::SystemTime, PathBuf, u64)> = rd
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".txt"))
        .filter_map(|e| {
            let m = e.metadata().ok()?;
            Some((m.modified().ok()?, e.path(), m.len()))
        })
        .collect();
    let mut total: u64 = files.iter().map(|f| f.2).sum();
    if total <= max {
        return;
    }
    files.sort();
    for (_, p, len) in files {
        if total <= max / 4 * 3 {
            break;
        }
        if std::fs::remove_file(&p).is_ok() {
            total = total.saturating_sub(len);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("radbg-ptxas-cache-test-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn the_hash_is_fnv1a_128_and_separates_its_parts() {
        // FNV-1a 128 of the empty string is its offset basis; the separator changes it.
        assert_ne!(hash(&[b"ab", b"c"]), hash(&[b"a", b"bc"]));
        assert_eq!(hash(&[b"x"]), hash(&[b"x"]));
        assert_eq!(format!("{:032x}", hash(&[b"ptx"])).len(), 32);
    }

    #[test]
    fn an_answer_comes_back_for_the_same_key_only() {
        let d = tmp("key");
        let a = Answer { ok: true, text: "ptxas info    : Used 9 registers\n".into() };
        let args = args("sm_80", None);
        store_as(&d, "V13", &args, "PTX", &a);
        assert_eq!(read(&d, "V13", &args, "PTX"), Some(a.clone()));
        assert_eq!(read(&d, "V13", &args, "PTX2"), None);
        assert_eq!(read(&d, "V12", &args, "PTX"), None);
        assert_eq!(read(&d, "V13", &super::args("sm_80", Some(32)), "PTX"), None);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_truncated_or_foreign_entry_is_a_miss() {
        let d = tmp("corrupt");
        let a = Answer { ok: false, text: "ptxas fatal   : Unresolved extern function 'f'\n".into() };
        let args = args("sm_90", Some(64));
        store_as(&d, "V13", &args, "PTX", &a);
        let (path, _) = entry(&d, "V13", &args, "PTX");
        let full = std::fs::read_to_string(&path).expect("written");
        std::fs::write(&path, &full[..full.len() - 5]).expect("truncate");
        assert_eq!(read(&d, "V13", &args, "PTX"), None);
        std::fs::write(&path, "garbage").expect("overwrite");
        assert_eq!(read(&d, "V13", &args, "PTX"), None);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn the_oldest_entries_go_past_the_bound() {
        let d = tmp("trim");
        let args = args("sm_80", None);
        for i in 0..8 {
            let a = Answer { ok: true, text: "x".repeat(1000) };
            store_as(&d, "V13", &args, &format!("PTX{i}"), &a);
            // Distinct modification times, oldest first.
            let (p, _) = entry(&d, "V13", &args, &format!("PTX{i}"));
            let f = std::fs::File::options().append(true).open(&p).expect("open");
            let t = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000 + i);
            f.set_modified(t).expect("set time");
        }
        // 1 079 bytes an entry: 5 000 is crossed, and 3 750 keeps the newest three.
        trim_to(&d, 5000);
        let left: Vec<bool> = (0..8).map(|i| read(&d, "V13", &args, &format!("PTX{i}")).is_some()).collect();
        assert_eq!(left, [false, false, false, false, false, true, true, true]);
        let _ = std::fs::remove_dir_all(&d);
    }
}
