//! Completion and hints for the command language, shared by the REPL (rustyline) and
//! the TUI's command line so both offer the same words: command names from
//! `command::table`, vreg names of the selected function, knob names from
//! `knobs::CATALOGUE`, breakpoint numbers, stage names, classes, file names.
//!
//! Reads the session only (names, breakpoint numbers); knows nothing of terminals.

use crate::command::Session;
use crate::command::parse::{
    ALLOCATORS, ATTEMPT_FILTERS, BREAK_KINDS, DIFFS, EVENT_KINDS, EXPECTS, EXPORT_FORMATS, EXPORTS, INFO_TOPICS,
    KNOBS_ARGS, ON_OFF, SETTINGS, STAT_FIELDS, SWEEP_AXES, WHATIFS, WHYS,
};
use crate::command::table::{self, COMMANDS};
use crate::engine::{Stage, query};

/// What to put in place of the word under the cursor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Completion {
    /// Byte offset in the line where the replaced word starts.
    pub start: usize,
    /// Full replacement words, sorted, without duplicates.
    pub candidates: Vec<String>,
}

impl Completion {
    /// The longest prefix every candidate shares.
    pub fn common_prefix(&self) -> String {
        let Some(first) = self.candidates.first() else { return String::new() };
        let mut end = first.len();
        for c in &self.candidates[1..] {
            end = end.min(first.bytes().zip(c.bytes()).take_while(|(a, b)| a == b).count());
        }
        while !first.is_char_boundary(end) {
            end -= 1;
        }
        first[..end].to_string()
    }
}

/// The words of the command under the cursor: those before the current one, and the
/// current (possibly empty) word with its start offset. `None` inside a comment.
fn context(line: &str, pos: usize) -> Option<(Vec<&str>, &str, usize)> {
    let pos = pos.min(line.len());
    let before = line.get(..pos)?;
    if before.contains('#') {
        return None;
    }
    let seg_start = before.rfind(';').map(|i| i + 1).unwrap_or(0);
    let seg = &before[seg_start..];
    let cur_len = seg.len() - seg.trim_end_matches(|c: char| !c.is_whitespace()).len();
    let cur_start = pos - cur_len;
    let done: Vec<&str> = before[seg_start..cur_start].split_whitespace().collect();
    Some((done, &before[cur_start..], cur_start))
}

use crate::engine::settings::SM_EXAMPLES as SMS;

fn classes() -> Vec<String> {
    crate::command::parse::classes().map(|c| c.name().to_string()).collect()
}

fn words(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// Vreg names of the function queries look at.
fn vregs(s: &Session) -> Vec<String> {
    let Some(d) = s.dbg.as_ref() else { return Vec::new() };
    let fi = s.selected.unwrap_or_else(|| query::current_func(d));
    if d.machine().module.functions.is_empty() {
        return Vec::new();
    }
    query::func_ir(d.machine(), fi).vregs.iter().map(|v| v.name.to_string()).collect()
}

fn breakpoints(s: &Session) -> Vec<String> {
    s.dbg.as_ref().map(|d| d.breakpoints.iter().map(|b| b.id.to_string()).collect()).unwrap_or_default()
}

fn functions(s: &Session) -> Vec<String> {
    s.dbg
        .as_ref()
        .map(|d| d.machine().module.functions.iter().map(|f| f.name.to_string()).collect())
        .unwrap_or_default()
}

fn state_offsets(s: &Session) -> Vec<String> {
    s.dbg
        .as_ref()
        .map(|d| {
            query::state_table(d.machine())
                .into_iter()
                .filter(|f| f.value.is_some())
                .map(|f| format!("+{}", f.offset))
                .collect()
        })
        .unwrap_or_default()
}

/// File names in the directory of `prefix` that start with its last component.
fn files(prefix: &str) -> Vec<String> {
    let (dir, stem) = match prefix.rfind('/') {
        Some(i) => (&prefix[..=i], &prefix[i + 1..]),
        None => ("", prefix),
    };
    let Ok(rd) = std::fs::read_dir(if dir.is_empty() { "." } else { dir }) else { return Vec::new() };
    let mut out = Vec::new();
    for e in rd.flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        if !name.starts_with(stem) || (name.starts_with('.') && !stem.starts_with('.')) {
            continue;
        }
        let slash = if e.file_type().is_ok_and(|t| t.is_dir()) { "/" } else { "" };
        out.push(format!("{dir}{name}{slash}"));
    }
    out
}

/// Candidates for the word after `done` (all candidates; the caller filters by prefix).
fn candidates(s: &Session, done: &[&str], cur: &str) -> Vec<String> {
    let Some(first) = done.first() else {
        return COMMANDS.iter().map(|c| c.name.to_string()).collect();
    };
    let Some(spec) = table::find(first) else { return Vec::new() };
    let n = done.len();
    let prev = done.last().copied().unwrap_or("");
    match (spec.name, n) {
        ("break" | "tbreak" | "advance" | "until", 1) => words(BREAK_KINDS),
        ("break" | "tbreak" | "advance" | "until", 2) => match done[1] {
            "assign" | "spill" => vregs(s),
            "stage" => Stage::ALL.iter().map(|st| st.name().to_string()).collect(),
            "attempt" => words(ATTEMPT_FILTERS),
            _ => Vec::new(),
        },
        ("break" | "tbreak" | "advance" | "until", _) => match (done[1], prev) {
            (_, "class") => classes(),
            (_, "if") | (_, "&&") => words(crate::engine::breakpoint::COND_VARS),
            ("assign", _) if n == 3 => words(&["if"]),
            ("assign", _) if n >= 7 && (n - 7).is_multiple_of(4) => words(&["&&"]),
            ("attempt", _) => words(ATTEMPT_FILTERS),
            _ => Vec::new(),
        },
        ("condition", 1) => breakpoints(s),
        ("condition", _) if n == 2 || prev == "&&" => words(crate::engine::breakpoint::COND_VARS),
        ("ignore", 1) => breakpoints(s),
        ("undisplay", 1) => s.displays.iter().map(|(k, _)| k.to_string()).collect(),
        ("display", 1) => {
            let mut v: Vec<String> = COMMANDS
                .iter()
                .filter(|c| {
                    crate::command::parse::parse_line(c.examples.first().copied().unwrap_or(""))
                        .is_ok_and(|cmds| cmds.len() == 1 && !crate::command::parse::moves(&cmds[0]))
                        && !matches!(c.name, "display" | "undisplay" | "quit" | "help" | "echo" | "export" | "source")
                })
                .map(|c| c.name.to_string())
                .collect();
            if cur.starts_with('%') {
                v = vregs(s);
            }
            v
        }
        ("source", _) => files(cur),
        ("watch", 1) => state_offsets(s),
        ("info", 1) => words(INFO_TOPICS),
        ("info", 2) if matches!(done[1], "registers" | "r") => classes(),
        ("delete" | "enable" | "disable", 1) => breakpoints(s),
        ("func", 1) => functions(s),
        ("print" | "constraints", 1) => vregs(s),
        ("attempts", 1) => classes(),
        ("state", 1) => state_offsets(s),
        ("knobs", 1) => words(KNOBS_ARGS),
        ("set", 1) => words(SETTINGS),
        ("set", 2) => match done[1] {
            "knob" => crate::knobs::CATALOGUE.iter().map(|k| format!("{}=", k.name)).collect(),
            "dce" | "stop-on-error" => words(ON_OFF),
            "allocator" => words(ALLOCATORS),
            "sm" => words(SMS),
            "stage" => words(&crate::prepass::stage_names()),
            _ => Vec::new(),
        },
        ("set", 3) if done[1] == "stage" => words(ON_OFF),
        ("diff", 1) => words(DIFFS),
        ("why", 1) => words(WHYS),
        ("why", 2) => match done[1] {
            "spill" => vregs(s),
            "registers" => functions(s),
            "fail" => classes(),
            _ => Vec::new(),
        },
        ("whatif", 1) => words(WHATIFS),
        ("sweep", 1) => words(SWEEP_AXES),
        ("whatif", 2) => match done[1] {
            "knob" => crate::knobs::CATALOGUE.iter().map(|k| format!("{}=", k.name)).collect(),
            "sm" => words(SMS),
            _ => Vec::new(),
        },
        ("diff", 2) if done[1] == "attempts" => classes(),
        ("expect", 1) => {
            let mut v = words(EXPECTS);
            if cur.starts_with('%') {
                v = vregs(s);
            }
            v
        }
        ("expect", 2) => match done[1] {
            "stats" => words(STAT_FIELDS),
            "attempts" => words(&["class"]),
            "event" => words(EVENT_KINDS),
            "cursor" => words(&["=="]),
            v if v.starts_with('%') => words(&["=="]),
            _ => Vec::new(),
        },
        ("expect", 3) if done[1] == "attempts" => classes(),
        ("export", 1) => words(EXPORT_FORMATS),
        ("export", 2) => files(cur),
        ("export", 3) => words(EXPORTS),
        ("load", _) => files(cur),
        ("help", 1) => COMMANDS.iter().map(|c| c.name.to_string()).collect(),
        _ => Vec::new(),
    }
}

/// Completes the word at byte `pos` of `line`.
pub fn complete(s: &Session, line: &str, pos: usize) -> Completion {
    let Some((done, cur, start)) = context(line, pos) else {
        return Completion { start: pos.min(line.len()), candidates: Vec::new() };
    };
    let mut c: Vec<String> = candidates(s, &done, cur).into_iter().filter(|w| w.starts_with(cur)).collect();
    // Knob names are typed in any case in practice; match them case-insensitively.
    if c.is_empty() && done.len() == 2 && done[1] == "knob" {
        let lower = cur.to_ascii_lowercase();
        c = crate::knobs::CATALOGUE
            .iter()
            .filter(|k| k.name.to_ascii_lowercase().starts_with(&lower))
            .map(|k| format!("{}=", k.name))
            .collect();
    }
    c.sort_by_key(|w| natural(w));
    c.dedup();
    Completion { start, candidates: c }
}

/// A sort key that orders digit runs by value: `%tap2` before `%tap10`.
fn natural(s: &str) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    let mut text = String::new();
    let mut num: Option<u64> = None;
    for ch in s.chars() {
        match (ch.to_digit(10), num) {
            (Some(d), Some(n)) => num = Some(n.saturating_mul(10).saturating_add(d as u64)),
            (Some(d), None) => num = Some(d as u64),
            (None, Some(n)) => {
                out.push((std::mem::take(&mut text), n));
                num = None;
                text.push(ch);
            }
            (None, None) => text.push(ch),
        }
    }
    out.push((text, num.unwrap_or(0)));
    out
}

/// A hint shown after the cursor: the rest of a command name typed so far, or the
/// synopsis of a command typed in full. `None` unless the cursor is at the end.
pub fn hint(line: &str, pos: usize) -> Option<String> {
    if pos != line.len() {
        return None;
    }
    let (done, cur, _) = context(line, pos)?;
    match (done.as_slice(), cur) {
        ([], w) if !w.is_empty() => {
            let matches: Vec<&str> = COMMANDS.iter().map(|c| c.name).filter(|n| n.starts_with(w)).collect();
            match matches.as_slice() {
                [one] if *one != w => Some(one[w.len()..].to_string()),
                _ => None,
            }
        }
        ([cmd], "") => {
            let spec = table::find(cmd)?;
            let args = spec.synopsis.strip_prefix(spec.name)?.trim_start();
            (!args.is_empty()).then(|| args.to_string())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::RegClass;

    fn demo() -> Session {
        let mut s = Session::new();
        let file = crate::ir::span::SourceFile::from_bytes("demo".to_string(), crate::demo::DEMO.as_bytes()).unwrap();
        let loaded = crate::load::load_ori(&file).unwrap();
        s.open(loaded.module, "demo", false);
        s
    }

    fn check(line: &str, expected: &[&str]) {
        let s = demo();
        let c = complete(&s, line, line.len());
        let got: Vec<&str> = c.candidates.iter().map(String::as_str).collect();
        assert_eq!(got, expected, "completing {line:?}");
    }

    #[test]
    fn completes_by_context() {
        check("bre", &["break"]);
        check("re", &["reduce", "reverse-continue", "reverse-finish", "reverse-next", "reverse-step"]);
        check("break a", &["abi", "assign", "attempt"]);
        check("break assign %tap1", &["%tap1", "%tap10", "%tap11", "%tap12", "%tap13", "%tap14", "%tap15"]);
        check(
            "print %x",
            &[
                "%x0", "%x1", "%x2", "%x3", "%x4", "%x5", "%x6", "%x7", "%x8", "%x9", "%x10", "%x11", "%x12", "%x13",
                "%x14", "%x15",
            ],
        );
        check("break stage al", &["alloc"]);
        check("break assign %x1 if s", &["slot"]);
        check("set knob RegAllocThresholdFor", &["RegAllocThresholdForDiscardConflicts="]);
        check("set knob regallocthresholdfor", &["RegAllocThresholdForDiscardConflicts="]);
        check("set d", &["dce"]);
        check("step; p %rd", &["%rd0", "%rd1", "%rd2", "%rd3", "%rd4"]);
        check("func f", &["fir16"]);
        check("diff attempts U", &["UP", "UR", "URext"]);
        check("# step", &[]);
        check("help fi", &["finish"]);
    }

    /// Every sub-word the parser knows, its aliases, every command word, and some junk.
    fn vocabulary() -> Vec<&'static str> {
        use crate::command::parse::*;
        let lists: &[&[&str]] = &[
            BREAK_KINDS,
            ATTEMPT_FILTERS,
            ATTEMPT_FILTER_ALIASES,
            INFO_TOPICS,
            SETTINGS,
            ON_OFF,
            crate::engine::settings::ON_WORDS,
            crate::engine::settings::OFF_WORDS,
            ALLOCATORS,
            DIFFS,
            EXPECTS,
            STAT_FIELDS,
            EVENT_KINDS,
            WHYS,
            WHY_ALIASES,
            WHATIFS,
            SWEEP_AXES,
            EXPORT_FORMATS,
            EXPORTS,
            KNOBS_ARGS,
            crate::engine::breakpoint::COND_VARS,
            &["zzz", "foo", "breakpoint", "register", "local", "snk", "if", "class"],
        ];
        let mut v: Vec<&str> = lists.iter().flat_map(|l| l.iter().copied()).collect();
        v.extend(INFO_ALIASES.iter().map(|(a, _)| *a));
        v.extend(crate::engine::AllocatorKind::ALIASES.iter().map(|(a, _)| *a));
        v.extend(RegClass::ALL.iter().map(|c| c.name()));
        v.extend(crate::engine::Stage::ALL.iter().map(|s| s.name()));
        v.extend(crate::prepass::stage_names());
        v.extend(table::all_words());
        // Numbers are arguments, not sub-words.
        v.retain(|w| !w.chars().all(|c| c.is_ascii_digit()));
        v.sort();
        v.dedup();
        v
    }

    /// Whether the parser takes `w` as the next word after `ctx`: the line parses, or
    /// its error is about something after `w` (a missing argument), not `w` itself.
    fn accepts(ctx: &str, w: &str) -> bool {
        let line = format!("{ctx}{w}");
        match crate::command::parse_line(&line) {
            Ok(_) => true,
            Err(e) => e.start != ctx.len(),
        }
    }

    /// One grammar source: for every command position with fixed sub-words, completion
    /// offers exactly the words the parser accepts there (less the listed aliases,
    /// accepted but not offered). Once `break iteration` was accepted and not offered.
    #[test]
    fn completion_offers_what_the_parser_accepts() {
        use crate::command::parse::*;
        let s = demo();
        let info_aliases: Vec<&str> = INFO_ALIASES.iter().map(|(a, _)| *a).collect();
        let command_aliases: Vec<&str> = COMMANDS.iter().flat_map(|c| c.aliases.iter().copied()).collect();
        let on_off_aliases: Vec<&str> = crate::engine::settings::ON_WORDS[1..]
            .iter()
            .chain(&crate::engine::settings::OFF_WORDS[1..])
            .copied()
            .collect();
        let allocator_aliases: Vec<&str> = crate::engine::AllocatorKind::ALIASES.iter().map(|(a, _)| *a).collect();
        let contexts: &[(&str, &[&str])] = &[
            ("", &command_aliases),
            ("break ", &[]),
            ("tbreak ", &[]),
            ("advance ", &[]),
            ("break attempt ", ATTEMPT_FILTER_ALIASES),
            ("info ", &info_aliases),
            ("set ", &[]),
            ("set dce ", &on_off_aliases),
            ("set stop-on-error ", &on_off_aliases),
            ("set allocator ", &allocator_aliases),
            ("diff ", &[]),
            ("expect ", &[]),
            ("expect stats ", &[]),
            ("why ", WHY_ALIASES),
            ("whatif ", &[]),
            ("sweep ", &[]),
            ("knobs ", &[]),
            ("export ", &[]),
            ("export json f.json ", &[]),
            ("attempts ", &[]),
            ("info registers ", &[]),
            ("why fail ", &[]),
            ("diff attempts ", &[]),
            ("expect attempts ", &[]),
            ("expect attempts class ", &[]),
            ("break attempt class ", &[]),
            ("break stage ", &[]),
            ("break assign %x1 ", &[]),
            ("set stage ", &[]),
            ("set stage sink ", &on_off_aliases),
            ("expect event ", &[]),
        ];
        for (ctx, hidden) in contexts {
            let mut offered: Vec<String> = complete(&s, ctx, ctx.len()).candidates;
            offered.extend(hidden.iter().filter(|w| !w.chars().all(|c| c.is_ascii_digit())).map(|w| w.to_string()));
            offered.sort();
            offered.dedup();
            let accepted: Vec<String> =
                vocabulary().into_iter().filter(|w| accepts(ctx, w)).map(str::to_string).collect();
            assert_eq!(accepted, offered, "after {ctx:?}: accepted by the parser (left) vs offered (right)");
        }
        // Open sets (any sm_NN): completion offers examples the parser takes.
        for ctx in ["set sm ", "whatif sm "] {
            let offered = complete(&s, ctx, ctx.len()).candidates;
            assert!(!offered.is_empty() && offered.iter().all(|w| accepts(ctx, w)), "after {ctx:?}: {offered:?}");
        }
    }

    /// Every event kind the engine and both allocators produce on a few kernels is
    /// one `expect event` takes (and completion offers).
    #[test]
    fn event_kinds_are_the_ones_events_have() {
        use crate::engine::{AllocatorKind, Machine, RunOptions};
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sessions");
        let mut seen = std::collections::BTreeSet::new();
        for (file, allocator) in [
            ("demo.ori", AllocatorKind::FatPoint),
            ("alloc_fail.ori", AllocatorKind::FatPoint),
            ("abi_lower.ori", AllocatorKind::FatPoint),
            ("why_stages.ptx", AllocatorKind::FatPoint),
            ("briggs_k15.ori", AllocatorKind::Briggs),
            ("briggs_moves.ori", AllocatorKind::Briggs),
        ] {
            let loaded = crate::load::load_path(&root.join(file)).expect("a session kernel loads");
            let opts = RunOptions { allocator, dce: true, imported: loaded.imported, ..RunOptions::default() };
            let mut m = Machine::new(loaded.module, opts);
            while let Some(e) = m.step() {
                seen.insert(e.kind_name());
            }
        }
        let missing: Vec<&str> = seen.iter().copied().filter(|k| !EVENT_KINDS.contains(k)).collect();
        assert!(missing.is_empty(), "event kinds not in parse::EVENT_KINDS: {missing:?}");
        assert!(seen.len() >= 20, "the kernels exercise few kinds: {seen:?}");
    }

    #[test]
    fn gdb_words_complete() {
        check("bac", &["backtrace"]);
        check("info r", &["registers"]);
        check("tbreak a", &["abi", "assign", "attempt"]);
        check("break i", &["iteration"]);
        check("advance st", &["stage"]);
        check("condition 1 s", &["slot"]);
    }

    #[test]
    fn breakpoint_numbers() {
        let mut s = demo();
        for line in ["break fail", "break checker"] {
            for c in crate::command::parse_line(line).unwrap() {
                s.exec(&c).unwrap();
            }
        }
        let c = complete(&s, "delete ", 7);
        assert_eq!(c.candidates, vec!["1".to_string(), "2".to_string()]);
        assert_eq!(c.start, 7);
    }

    #[test]
    fn hints_and_prefixes() {
        assert_eq!(hint("brea", 4).as_deref(), Some("k"));
        assert_eq!(hint("step ", 5).as_deref(), Some("[N]"));
        assert_eq!(hint("s ", 2).as_deref(), Some("[N]"));
        assert_eq!(hint("step 3", 6), None);
        assert_eq!(hint("re", 2), None);
        let c = Completion { start: 0, candidates: vec!["reverse-next".into(), "reverse-step".into()] };
        assert_eq!(c.common_prefix(), "reverse-");
    }
}
