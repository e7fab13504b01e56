//! The `.radbg` grammar (`grammar/radbg.ebnf`) against the command table and the
//! parser, so that none of the three can change alone:
//! - the grammar's command productions and their keywords are exactly the table's
//!   names and aliases;
//! - every example in the table, every line of `sessions/*.radbg` and the quirks in
//!   `LINES` derive from the grammar's `line` and parse; the lines that must fail
//!   (`LINES`, and the deliberate errors of the sessions in `SESSION_ERRORS`) fail in
//!   both, or — for checks beyond a context-free grammar (ranges, the knob catalogue)
//!   — derive and are refused by the parser with the message given;
//! - thousands of small edits of those lines (fixed seed) never make the parser
//!   accept what the grammar rejects, nor refuse what it derives except for the
//!   checks listed in `REFUSALS`.
//!
//! The EBNF is read by a small reader and matched by a backtracking matcher that
//! returns every position a production can end at (the grammar has no left recursion).

use std::collections::{BTreeMap, BTreeSet};

use radbg::command::parse::parse_line;
use radbg::command::table::COMMANDS;

// ------------------------------------------------------------------ reading the EBNF

#[derive(Clone, Debug)]
enum Node {
    Alt(Vec<Node>),
    Seq(Vec<Node>),
    Opt(Box<Node>),
    Rep(Box<Node>),
    /// ISO's `A - B`: A, unless B matches the same text.
    Except(Box<Node>, Box<Node>),
    Ref(String),
    Lit(String),
    Special(String),
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Id(String),
    Lit(String),
    Special(String),
    Punct(char),
}

fn tokens(src: &str) -> Vec<Tok> {
    // Comments first: no literal of the grammar contains "(*".
    let mut text = String::new();
    let mut rest = src;
    while let Some(i) = rest.find("(*") {
        text.push_str(&rest[..i]);
        text.push(' ');
        rest = &rest[i + rest[i..].find("*)").expect("grammar: unterminated comment") + 2..];
    }
    text.push_str(rest);
    let cs: Vec<char> = text.chars().collect();
    let (mut out, mut i) = (Vec::new(), 0);
    while i < cs.len() {
        let c = cs[i];
        let run = |i: usize, f: &dyn Fn(char) -> bool| (i..cs.len()).find(|&j| !f(cs[j])).unwrap_or(cs.len());
        if c.is_whitespace() {
            i += 1;
        } else if matches!(c, '"' | '\'' | '?') {
            let end = run(i + 1, &|d| d != c);
            assert!(end < cs.len(), "grammar: unterminated {c}");
            let s: String = cs[i + 1..end].iter().collect();
            out.push(if c == '?' { Tok::Special(s.trim().to_string()) } else { Tok::Lit(s) });
            i = end + 1;
        } else if c.is_ascii_alphanumeric() || c == '_' {
            let end = run(i, &|d| d.is_ascii_alphanumeric() || d == '_');
            out.push(Tok::Id(cs[i..end].iter().collect()));
            i = end;
        } else {
            out.push(Tok::Punct(c));
            i += 1;
        }
    }
    out
}

struct Reader {
    toks: Vec<Tok>,
    i: usize,
}

impl Reader {
    fn eat(&mut self, c: char) -> bool {
        let hit = self.toks.get(self.i) == Some(&Tok::Punct(c));
        self.i += hit as usize;
        hit
    }
    fn expect(&mut self, c: char) {
        assert!(self.eat(c), "grammar: expected '{c}' at token {} ({:?})", self.i, self.toks.get(self.i));
    }
    fn alt(&mut self) -> Node {
        let mut v = vec![self.seq()];
        while self.eat('|') {
            v.push(self.seq());
        }
        if v.len() == 1 { v.pop().expect("one") } else { Node::Alt(v) }
    }
    fn seq(&mut self) -> Node {
        let mut v = vec![self.term()];
        while self.eat(',') {
            v.push(self.term());
        }
        if v.len() == 1 { v.pop().expect("one") } else { Node::Seq(v) }
    }
    fn term(&mut self) -> Node {
        let a = self.factor();
        if self.eat('-') { Node::Except(Box::new(a), Box::new(self.factor())) } else { a }
    }
    fn factor(&mut self) -> Node {
        let t = self.toks.get(self.i).cloned().expect("grammar ends inside a rule");
        self.i += 1;
        match t {
            Tok::Id(s) => Node::Ref(s),
            Tok::Lit(s) => Node::Lit(s),
            Tok::Special(s) => Node::Special(s),
            Tok::Punct(open @ ('[' | '{' | '(')) => {
                let inner = self.alt();
                self.expect(match open {
                    '[' => ']',
                    '{' => '}',
                    _ => ')',
                });
                match open {
                    '[' => Node::Opt(Box::new(inner)),
                    '{' => Node::Rep(Box::new(inner)),
                    _ => inner,
                }
            }
            t => panic!("grammar: unexpected {t:?} at token {}", self.i - 1),
        }
    }
}

fn grammar() -> BTreeMap<String, Node> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/grammar/radbg.ebnf");
    let src = std::fs::read_to_string(path).expect("grammar/radbg.ebnf");
    let mut r = Reader { toks: tokens(&src), i: 0 };
    let mut rules = BTreeMap::new();
    while r.i < r.toks.len() {
        let Some(Tok::Id(name)) = r.toks.get(r.i).cloned() else { panic!("grammar: rule name at token {}", r.i) };
        r.i += 1;
        r.expect('=');
        let body = r.alt();
        r.expect(';');
        assert!(rules.insert(name.clone(), body).is_none(), "grammar: {name} defined twice");
    }
    rules
}

// ------------------------------------------------------------------ matching

/// `? spaced P ?` names production P.
fn spaced(special: &str) -> Option<&str> {
    special.strip_prefix("spaced ")
}

struct Matcher<'g> {
    rules: &'g BTreeMap<String, Node>,
    text: Vec<char>,
    memo: BTreeMap<(&'g str, usize), BTreeSet<usize>>,
}

impl<'g> Matcher<'g> {
    /// Every position where `n`, started at `pos`, can end.
    fn ends(&mut self, n: &'g Node, pos: usize) -> BTreeSet<usize> {
        let one = |ok: bool| if ok { BTreeSet::from([pos + 1]) } else { BTreeSet::new() };
        let ch = self.text.get(pos).copied();
        match n {
            Node::Lit(s) => {
                let s: Vec<char> = s.chars().collect();
                if self.text[pos..].starts_with(&s) { BTreeSet::from([pos + s.len()]) } else { BTreeSet::new() }
            }
            Node::Special(s) if s == "any character" => one(ch.is_some()),
            Node::Special(s) if s == "white space" => one(ch.is_some_and(char::is_whitespace)),
            Node::Special(s) if s == "ASCII letter" => one(ch.is_some_and(|c| c.is_ascii_alphabetic())),
            Node::Special(s) if spaced(s).is_some() => {
                // The rest of the command, its words joined without their spaces.
                let stop =
                    (pos..self.text.len()).find(|&i| matches!(self.text[i], ';' | '#')).unwrap_or(self.text.len());
                let end = (pos..stop).rev().find(|&i| !self.text[i].is_whitespace()).map_or(pos, |i| i + 1);
                let joined: String = self.text[pos..end].iter().filter(|c| !c.is_whitespace()).collect();
                let ok = end > pos && derives(self.rules, spaced(s).expect("spaced"), &joined);
                if ok { BTreeSet::from([end]) } else { BTreeSet::new() }
            }
            Node::Special(s) => panic!("grammar: special sequence '? {s} ?' has no meaning in this test"),
            Node::Ref(name) => {
                let (key, body) = self.rules.get_key_value(name).unwrap_or_else(|| panic!("grammar: {name} undefined"));
                if let Some(e) = self.memo.get(&(key.as_str(), pos)) {
                    return e.clone();
                }
                let e = self.ends(body, pos);
                self.memo.insert((key.as_str(), pos), e.clone());
                e
            }
            Node::Seq(v) => {
                v.iter().fold(BTreeSet::from([pos]), |at, n| at.into_iter().flat_map(|p| self.ends(n, p)).collect())
            }
            Node::Alt(v) => v.iter().flat_map(|n| self.ends(n, pos)).collect(),
            Node::Opt(n) => self.ends(n, pos).into_iter().chain([pos]).collect(),
            Node::Rep(n) => {
                let (mut all, mut frontier) = (BTreeSet::from([pos]), vec![pos]);
                while let Some(p) = frontier.pop() {
                    frontier.extend(self.ends(n, p).into_iter().filter(|&e| all.insert(e)));
                }
                all
            }
            Node::Except(a, b) => {
                let not = self.ends(b, pos);
                self.ends(a, pos).into_iter().filter(|e| !not.contains(e)).collect()
            }
        }
    }
}

/// Whether all of `text` derives from production `rule`.
fn derives(rules: &BTreeMap<String, Node>, rule: &str, text: &str) -> bool {
    let mut m = Matcher { rules, text: text.chars().collect(), memo: BTreeMap::new() };
    let len = m.text.len();
    m.ends(&Node::Ref(rule.to_string()), 0).contains(&len)
}

// ------------------------------------------------------------------ the checks

/// What a line must do.
#[derive(Clone, Copy, Debug)]
enum Want {
    /// Derives from `line` and parses.
    Ok,
    /// The grammar rejects it; the parser's message starts with this.
    Syntax(&'static str),
    /// Derives, but a check beyond the grammar refuses it with this message.
    Refused(&'static str),
}

use Want::*;

/// Lines beyond the table's examples: the lenient corners of the language, then lines
/// the grammar rejects, then lines the parser refuses by its extra checks.
const LINES: &[(&str, Want)] = &[
    ("", Ok),
    ("# only a comment", Ok),
    (" ;; ", Ok),
    ("  run  # restart", Ok),
    ("s;n ; fin", Ok),
    ("step +3", Ok),
    ("step\u{3000}3", Ok),
    ("r", Ok),
    ("c", Ok),
    ("cont", Ok),
    ("rs", Ok),
    ("rn", Ok),
    ("g +5", Ok),
    ("b fail", Ok),
    ("break spill %r3", Ok),
    ("break attempt", Ok),
    ("break attempt spill 2 class UR NOSPILL", Ok),
    ("break assign %r1 if slot = 3 and cost < 5 && discarded != -1", Ok),
    ("w 1564", Ok),
    ("watch ++1564", Ok),
    ("i watchpoints", Ok),
    ("d", Ok),
    ("event", Ok),
    ("f", Ok),
    ("l 5", Ok),
    ("l 0 5", Syntax("unexpected '5' after source-view")),
    ("list", Ok),
    ("p %x", Ok),
    ("cons %r1", Ok),
    ("histogram", Ok),
    ("state 1524", Ok),
    ("set knob 684 = 10", Ok),
    ("set knob RegAllocEstimatedLoopIterations = a b", Ok),
    ("set dce yes", Ok),
    ("set allocator cicc", Ok),
    ("set stage no-such-pass off", Syntax("unknown stage 'no-such-pass'")),
    ("set stage sink off", Ok),
    ("attempts B", Syntax("register class 'B' is not allocated")),
    ("expect event asign", Syntax("unknown event kind 'asign'")),
    ("expect event colour-assigned", Ok),
    ("why regs", Ok),
    ("whatif maxrregcount 0", Refused("maxrregcount must be at least 1")),
    ("whatif sm sm_9", Refused("target 'sm_9' out of range")),
    ("whatif knob Nope=1", Refused("unknown knob 'Nope'")),
    ("whatif knob 684=10", Ok),
    ("sweep knob =1..5", Syntax("unknown knob ''")),
    ("sweep knob Nope=1..5", Refused("unknown knob 'Nope'")),
    ("sweep maxrregcount -4..+4:2", Refused("maxrregcount must be at least 1")),
    ("sweep maxrregcount +4..+8:2", Ok),
    ("expect % == R1", Ok),
    ("expect cursor != 3", Ok),
    ("expect stats registers <= 40", Ok),
    ("expect abi 42", Ok),
    ("expect why registers fir16 peak = 3", Ok),
    ("export json out.json graph", Ok),
    ("echo", Ok),
    ("echo  two  spaces", Ok),
    ("load my file.ori", Ok),
    ("help nosuch", Ok),
    ("? step", Ok),
    ("h", Ok),
    ("q", Ok),
    ("exit", Ok),
    // The grammar rejects these.
    ("Step", Syntax("unknown command 'Step'")),
    ("s3", Syntax("unknown command 's3'")),
    ("echo a;z", Syntax("unknown command 'z'")),
    ("run now", Syntax("unexpected 'now' after run")),
    ("step 3 4", Syntax("unexpected '4' after step")),
    ("step -1", Syntax("expected a count, found '-1'")),
    ("break", Syntax("break needs what to stop on")),
    ("break assign %r1 if", Syntax("condition needs VAR OP NUMBER")),
    ("break assign %r1 if slot >> 3", Syntax("expected a comparison")),
    ("break assign %r1 if slot > 3 || cost < 2", Syntax("expected '&&', found '||'")),
    ("break attempt +1", Syntax("unexpected '+1'")),
    ("break stage Alloc", Syntax("unknown stage 'Alloc'")),
    ("watch 0x10", Syntax("expected an offset like +1564, found '0x10'")),
    ("info frames", Syntax("unknown info topic 'frames'")),
    ("attempts Rx", Syntax("unknown register class 'Rx'")),
    ("knobs some", Syntax("expected 'all', found 'some'")),
    ("set knob", Syntax("set knob needs a value")),
    ("set dce maybe", Syntax("expected on or off, found 'maybe'")),
    ("set allocator greedy", Syntax("unknown allocator 'greedy'")),
    ("diff attempts R 0", Syntax("diff attempts needs two attempt numbers")),
    ("why spill r3", Syntax("expected a vreg name like %r12, found 'r3'")),
    ("whatif launch-bounds 256,", Syntax("expected THREADS[,BLOCKS], found '256,'")),
    ("sweep maxrregcount", Syntax("sweep maxrregcount needs a range")),
    ("display step", Syntax("display needs one command that")),
    ("display continue", Syntax("display needs one command that")),
    ("display live; step", Ok),
    ("display %x3", Ok),
    ("advance", Syntax("advance needs a location")),
    ("until", Ok),
    ("info registers UR", Ok),
    ("info locals R", Syntax("unexpected 'R'")),
    ("condition 1 slot", Syntax("condition needs an operator")),
    ("ignore 1", Syntax("ignore needs a count")),
    ("sweep maxrregcount 16-64", Syntax("expected A..B, found '16-64'")),
    ("expect %r1 = R1", Syntax("expected '=='")),
    ("expect attempts R == 3", Syntax("expected 'class'")),
    ("export csv out.csv", Syntax("unknown export format 'csv'")),
    ("export json out.json events", Syntax("cannot export 'events'")),
    // The grammar derives these; the parser's range and catalogue checks refuse them.
    ("step 1000000000", Refused("a count 1000000000 is out of range")),
    ("watch +1800", Refused("offset +1800 is past the state object")),
    ("break abi 6000", Refused("6000 is not an ABI warning code")),
    ("break attempt 65", Refused("an attempt number 65 is out of range")),
    ("set knob radbg.LoopWeight=2.5", Refused("knob radbg.LoopWeight takes an int value")),
    ("set sm sm_200", Refused("target 'sm_200' out of range")),
    ("whatif launch-bounds 2048", Refused("threads must be 1..=1024")),
    ("sweep maxrregcount 64..16", Refused("empty range '64..16'")),
];

/// The deliberate errors of `sessions/*.radbg` (every other line must be `Ok`).
const SESSION_ERRORS: &[(&str, Want)] = &[
    ("stpe", Syntax("unknown command 'stpe'")),
    ("break asign %acc0", Syntax("unknown breakpoint kind 'asign'")),
    ("break assign %acc0 if slto > 3", Syntax("unknown condition variable 'slto'")),
    ("print r5", Syntax("expected a vreg name like %r12, found 'r5'")),
    ("goto -1", Syntax("expected an event number, found '-1'")),
    ("diff attempts Q 0 1", Syntax("unknown register class 'Q'")),
    ("expect stats spil-stores == 1", Syntax("unknown statistic 'spil-stores'")),
    ("set knob 684=abc", Refused("knob RegAllocThresholdForDiscardConflicts")),
    ("set maxrregcount 0", Refused("maxrregcount must be at least 1")),
    ("set sm sm_9", Refused("target 'sm_9' out of range")),
    ("set knob RegAllocThresholdForDiscardConflicts=5000000000", Refused("knob RegAllocThresholdForDiscardConflicts")),
    ("set knob NoSuchKnob=1", Refused("unknown knob 'NoSuchKnob'")),
    ("set knob 684=true", Refused("knob RegAllocThresholdForDiscardConflicts")),
    ("disassemble", Syntax("unknown command 'disassemble'")),
    ("backtrce", Syntax("unknown command 'backtrce'")),
];

/// The one check: what `line` does in the grammar and in the parser against `want`.
fn check(rules: &BTreeMap<String, Node>, line: &str, want: Want) -> Option<String> {
    let derived = derives(rules, "line", line);
    let parsed = parse_line(line).map_err(|e| e.message);
    let ok = match (want, &parsed) {
        (Ok, Result::Ok(_)) => derived,
        (Syntax(m), Err(e)) => !derived && e.starts_with(m),
        (Refused(m), Err(e)) => derived && e.starts_with(m) && REFUSALS.iter().any(|r| e.contains(r)),
        _ => false,
    };
    (!ok).then(|| format!("{line:?}: want {want:?}; grammar derives it: {derived}; parser: {parsed:?}"))
}

fn report(failures: Vec<String>) {
    assert!(failures.is_empty(), "{} line(s) disagree:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn grammar_commands_are_the_tables() {
    let rules = grammar();
    let Some(Node::Alt(alts)) = rules.get("command") else { panic!("grammar: no 'command' alternatives") };
    let keywords = |n: &Node| -> BTreeSet<String> {
        let first = if let Node::Seq(v) = n { &v[0] } else { n };
        match first {
            Node::Lit(s) => BTreeSet::from([s.clone()]),
            Node::Alt(v) => v
                .iter()
                .map(|k| match k {
                    Node::Lit(s) => s.clone(),
                    k => panic!("grammar: a command must start with its keywords, found {k:?}"),
                })
                .collect(),
            k => panic!("grammar: a command must start with its keywords, found {k:?}"),
        }
    };
    let in_grammar: BTreeMap<String, BTreeSet<String>> = alts
        .iter()
        .map(|a| match a {
            Node::Ref(name) => (name.clone(), keywords(&rules[name])),
            a => panic!("grammar: 'command' alternatives must be productions, found {a:?}"),
        })
        .collect();
    let in_table: BTreeMap<String, BTreeSet<String>> = COMMANDS
        .iter()
        .map(|c| {
            let words = std::iter::once(c.name).chain(c.aliases.iter().copied()).map(String::from);
            (c.name.replace('-', "_"), words.collect())
        })
        .collect();
    assert_eq!(in_grammar, in_table, "grammar (left) and table (right) disagree on commands or keywords");
    assert_eq!(alts.len(), COMMANDS.len(), "a command appears twice in the grammar");
}

#[test]
fn every_production_is_defined_and_used() {
    let rules = grammar();
    fn refs<'a>(n: &'a Node, out: &mut Vec<&'a str>) {
        match n {
            Node::Alt(v) | Node::Seq(v) => v.iter().for_each(|n| refs(n, out)),
            Node::Opt(n) | Node::Rep(n) => refs(n, out),
            Node::Except(a, b) => [a, b].into_iter().for_each(|n| refs(n, out)),
            Node::Ref(s) => out.push(s),
            Node::Special(s) => out.extend(spaced(s)),
            Node::Lit(_) => {}
        }
    }
    let (mut seen, mut todo) = (BTreeSet::from(["session"]), vec!["session"]);
    while let Some(r) = todo.pop() {
        let mut out = Vec::new();
        refs(rules.get(r).unwrap_or_else(|| panic!("grammar: '{r}' is used but not defined")), &mut out);
        todo.extend(out.into_iter().filter(|&s| seen.insert(s)));
    }
    let unused: Vec<&String> = rules.keys().filter(|k| !seen.contains(k.as_str())).collect();
    assert!(unused.is_empty(), "grammar: not reachable from 'session': {unused:?}");
}

/// `knob_name` and `knob_key` are what the catalogue's names and indices look like.
#[test]
fn every_stage_is_a_pass_and_nothing_else_is() {
    let rules = grammar();
    for name in radbg::prepass::stage_names() {
        assert!(derives(&rules, "pass", name), "stage {name} is not a `pass` of the grammar");
    }
    for other in ["texture", "uniform", "sext", "fuse", "bank"] {
        assert!(!derives(&rules, "pass", other), "{other} is not a switchable stage");
    }
}

#[test]
fn every_knob_fits_knob_key() {
    let rules = grammar();
    for k in radbg::knobs::CATALOGUE {
        assert!(derives(&rules, "knob_name", k.name), "knob name {} is not a knob_name", k.name);
        let index = k.index.map(|i| i.to_string());
        assert!(index.iter().all(|i| derives(&rules, "knob_key", i)), "knob index {index:?} is not a knob_key");
    }
}

#[test]
fn table_examples_derive_and_parse() {
    let rules = grammar();
    report(COMMANDS.iter().flat_map(|c| c.examples).filter_map(|ex| check(&rules, ex, Ok)).collect());
}

#[test]
fn session_lines_derive_and_parse() {
    let rules = grammar();
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/sessions");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("sessions/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "radbg"))
        .collect();
    files.sort();
    assert!(files.len() >= 10, "expected the sessions, found {files:?}");
    let (mut failures, mut seen) = (Vec::new(), BTreeSet::new());
    for f in &files {
        let text = std::fs::read_to_string(f).expect("session");
        for line in text.lines().filter(|l| !l.trim().is_empty() && !l.trim().starts_with('#')) {
            let want = SESSION_ERRORS.iter().find(|(l, _)| *l == line.trim()).map_or(Ok, |&(l, w)| {
                seen.insert(l);
                w
            });
            failures.extend(check(&rules, line, want).map(|m| format!("{}: {m}", f.display())));
        }
    }
    let stale = SESSION_ERRORS.iter().filter(|(l, _)| !seen.contains(l));
    failures.extend(stale.map(|(l, _)| format!("{l:?} is in SESSION_ERRORS but in no session")));
    report(failures);
}

#[test]
fn quirks_and_rejections_agree() {
    let rules = grammar();
    report(LINES.iter().filter_map(|&(l, w)| check(&rules, l, w)).collect());
}

/// The parser's checks beyond the grammar (see the grammar's header): a line the
/// grammar derives may be refused only with one of these messages.
const REFUSALS: &[&str] = &[
    "is out of range",
    "is not an ABI warning code",
    "is past the state object",
    "maxrregcount must be at least 1",
    "target '",
    "unknown knob",
    "knob ",
    "threads must be 1..=1024",
    "empty range",
    "has more than 1024 values",
];

/// Thousands of lines made by small edits of the examples and of `LINES` (a fixed
/// seed): the parser accepts none the grammar rejects, and refuses the grammar's
/// lines only for the reasons in `REFUSALS`.
#[test]
fn mutated_lines_agree() {
    let rules = grammar();
    let base: Vec<&str> =
        COMMANDS.iter().flat_map(|c| c.examples.iter().copied()).chain(LINES.iter().map(|l| l.0)).collect();
    let alphabet: Vec<char> = "+-%;# =.:,0123456789aRsxz&<>!".chars().collect();
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut rnd = |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    let mut failures = BTreeMap::new();
    for _ in 0..5_000 {
        let mut line: Vec<char> = base[rnd(base.len())].chars().collect();
        for _ in 0..1 + rnd(3) {
            let (i, c) = (rnd(line.len() + 1), alphabet[rnd(alphabet.len())]);
            match rnd(3) {
                0 => line.insert(i, c),
                1 if i < line.len() => drop(line.remove(i)),
                _ if i < line.len() => line[i] = c,
                _ => {}
            }
        }
        let line: String = line.into_iter().collect();
        let why = match (derives(&rules, "line", &line), parse_line(&line)) {
            (false, Result::Ok(_)) => "the parser accepts what the grammar rejects".to_string(),
            (true, Err(e)) if !REFUSALS.iter().any(|r| e.message.contains(r)) => format!("refused: {}", e.message),
            _ => continue,
        };
        let head = line.split_whitespace().next().unwrap_or("").to_string();
        failures.entry((why, head)).or_insert(line);
    }
    report(failures.into_iter().map(|((why, _), line)| format!("{line:?}: {why}")).collect());
}
