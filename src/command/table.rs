//! The command table: one entry per command of the `.radbg` language. Help,
//! completion, hints, the TUI's key bar and a check against `grammar/radbg.ebnf` all
//! read it, so they cannot drift apart.

/// One command.
#[derive(Debug)]
pub struct CommandSpec {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub synopsis: &'static str,
    pub summary: &'static str,
    pub help: &'static str,
    pub category: Category,
    /// Lines that must parse (a test checks every one).
    pub examples: &'static [&'static str],
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Category {
    Running,
    Breakpoints,
    Inspecting,
    Options,
    Comparing,
    Explaining,
    Sessions,
}

impl Category {
    pub fn name(self) -> &'static str {
        match self {
            Category::Running => "running",
            Category::Breakpoints => "breakpoints",
            Category::Inspecting => "inspecting",
            Category::Options => "options",
            Category::Comparing => "comparing",
            Category::Explaining => "explaining",
            Category::Sessions => "sessions",
        }
    }
}

use Category::*;

macro_rules! cmd {
    ($name:literal, [$($a:literal),*], $syn:literal, $cat:expr, $sum:literal, $help:literal, [$($ex:literal),*]) => {
        CommandSpec { name: $name, aliases: &[$($a),*], synopsis: $syn, summary: $sum, help: $help, category: $cat, examples: &[$($ex),*] }
    };
}

pub static COMMANDS: &[CommandSpec] = &[
    cmd!(
        "load",
        ["file"],
        "load FILE",
        Sessions,
        "load an Ori IR or PTX file and restart",
        "Loads FILE (.ori, or .ptx to import) and positions the debugger before the first event. Run options set with `set` are kept.",
        ["load sessions/demo.ori"]
    ),
    cmd!(
        "run",
        ["r"],
        "run",
        Running,
        "restart the pipeline from the beginning",
        "Moves the cursor back to before the first event. Breakpoints are kept.",
        ["run"]
    ),
    cmd!(
        "step",
        ["s", "stepi", "si"],
        "step [N]",
        Running,
        "advance N events (default 1)",
        "Advances the pipeline by N events — one liveness sweep, one ABI check, one constraint list, one vreg assignment … — and prints the last one.",
        ["step", "step 10", "s 3"]
    ),
    cmd!(
        "next",
        ["n", "nexti", "ni"],
        "next",
        Running,
        "advance to the next event at the same level",
        "Skips inner detail: from an assignment to the next assignment (or the end of the attempt), from an attempt to the next attempt, from a stage event to the next stage event.",
        ["next", "n"]
    ),
    cmd!(
        "finish",
        ["fin"],
        "finish",
        Running,
        "run to the end of the current attempt, class or stage",
        "From an assignment, runs to the end of its attempt; from an attempt-level event, to the end of the class; from a class, to the next stage.",
        ["finish"]
    ),
    cmd!(
        "continue",
        ["c", "cont"],
        "continue",
        Running,
        "run until a breakpoint, a watchpoint or the end",
        "Runs forward until an enabled breakpoint or watchpoint triggers, or the pipeline ends. Ctrl-C interrupts it in the REPL.",
        ["continue", "c"]
    ),
    cmd!(
        "reverse-step",
        ["rs", "reverse-stepi", "rsi"],
        "reverse-step [N]",
        Running,
        "go back N events (default 1)",
        "Restores the state N events earlier (from the nearest checkpoint, replaying forward).",
        ["reverse-step", "rs 5"]
    ),
    cmd!(
        "reverse-next",
        ["rn", "reverse-nexti", "rni"],
        "reverse-next",
        Running,
        "go back to the previous event at the same level",
        "The reverse of `next`.",
        ["reverse-next"]
    ),
    cmd!(
        "reverse-continue",
        ["rc"],
        "reverse-continue",
        Running,
        "go back to the previous breakpoint hit (or the start)",
        "Searches backwards for the most recent event that triggers a breakpoint or watchpoint and stops there.",
        ["reverse-continue", "rc"]
    ),
    cmd!(
        "reverse-finish",
        [],
        "reverse-finish",
        Running,
        "go back to where the enclosing frame began",
        "The reverse of `finish`: back to the event that opened the innermost enclosing frame of `backtrace` — from an assignment to its attempt's start, from there to its class's start, then to its stage's first event.",
        ["reverse-finish"]
    ),
    cmd!(
        "until",
        ["u"],
        "until [LOCATION]",
        Running,
        "`next`, or run to LOCATION (as `advance`)",
        "Without an argument: `next` (radbg's `next` never goes back, so gdb's loop rule is moot). With a LOCATION: `advance LOCATION`.",
        ["until", "until 200", "u assign %x3"]
    ),
    cmd!(
        "advance",
        [],
        "advance N | advance (assign|spill) %VREG | advance attempt … | advance stage NAME | …",
        Running,
        "run to event N or to the next event a breakpoint of that kind would stop at",
        "Runs forward to event number N, or to the next event matching a breakpoint description (the kinds and conditions of `break`), without setting a breakpoint. Enabled breakpoints still stop it on the way.",
        ["advance 300", "advance assign %x3 if attempt > 0", "advance stage check", "advance attempt 1"]
    ),
    cmd!(
        "start",
        [],
        "start",
        Running,
        "restart and run to the allocator's first event",
        "gdb's `start` stops at main: radbg's restarts the pipeline and runs to the first event of the `alloc` stage (breakpoints on the way still stop it).",
        ["start"]
    ),
    cmd!(
        "goto",
        ["g"],
        "goto N",
        Running,
        "move to event N (the state after N events)",
        "Moves the cursor to event number N, forwards or backwards. `goto 0` is the start.",
        ["goto 120", "goto 0"]
    ),
    cmd!(
        "break",
        ["b"],
        "break (assign|spill) %VREG [if COND] | break attempt [N] [class C] [spill|nospill] | break iteration [N] | break stage NAME | break abi CODE | break fail | break checker",
        Breakpoints,
        "set a breakpoint",
        "Stops `continue` on: a vreg's assignment (with a condition over slot, attempt, cost, discarded, e.g. `if slot >= 32 && attempt > 0`); a vreg marked for spilling (any vreg when none is named); an attempt's start; a Chaitin-Briggs iteration's start (`set allocator briggs`; under Briggs `assign` stops where the vreg's node is coloured and `spill` where it gets no colour); a stage's first event; an ABI warning code; allocation failure; a checker fault.",
        [
            "break assign %r12",
            "break assign %r12 if slot >= 32",
            "break spill",
            "break attempt 1 class R spill",
            "break iteration 2",
            "break stage alloc",
            "break abi 7004",
            "break fail",
            "break checker"
        ]
    ),
    cmd!(
        "watch",
        ["w"],
        "watch +OFFSET",
        Breakpoints,
        "stop when an allocator state field changes",
        "Watches the allocator state object field at byte offset OFFSET (e.g. +1564, the current max assignment).",
        ["watch +1564"]
    ),
    cmd!(
        "info",
        ["i"],
        "info breakpoints | info registers | info locals | info frame | info stack | info display",
        Breakpoints,
        "list breakpoints, assignments so far, the live set, frames or displays",
        "gdb's info topics, where they map: `breakpoints` (also `watchpoints`, `b`) lists breakpoints with their numbers, hit counts, conditions and ignore counts; `registers` (`r`) the assignments so far of the current function, vreg → register by class (`info registers R` for one class); `locals` the live set at the current point, as `live`; `frame` (`f`) the selected frame of `backtrace`; `stack` (`s`) the backtrace; `display` the expressions `display` shows after each stop.",
        [
            "info breakpoints",
            "info b",
            "info registers",
            "i r",
            "info registers R",
            "info locals",
            "info frame",
            "info stack",
            "info display"
        ]
    ),
    cmd!(
        "tbreak",
        ["tb"],
        "tbreak (assign|spill) %VREG [if COND] | tbreak attempt … | tbreak stage NAME | …",
        Breakpoints,
        "set a breakpoint that is deleted when it first stops the run",
        "Like `break` (the same kinds and conditions), but the breakpoint is deleted the first time it stops `continue`.",
        ["tbreak assign %x3", "tbreak stage alloc", "tb attempt 1"]
    ),
    cmd!(
        "condition",
        ["cond"],
        "condition N [COND]",
        Breakpoints,
        "set or remove the condition of breakpoint N",
        "Sets the condition of breakpoint N (the `if` part of `break assign %VREG if COND`: terms over slot, attempt, cost, discarded joined by &&); without COND removes it. Conditions test an assignment, so they apply to assign breakpoints.",
        ["condition 1 slot >= 32", "condition 1 attempt > 0 && slot < 8", "condition 1"]
    ),
    cmd!(
        "ignore",
        [],
        "ignore N COUNT",
        Breakpoints,
        "pass over the next COUNT hits of breakpoint N",
        "Breakpoint N does not stop the run for its next COUNT hits (they still count in `info breakpoints`); `ignore N 0` stops at the next one again.",
        ["ignore 1 3", "ignore 2 0"]
    ),
    cmd!(
        "delete",
        ["d"],
        "delete [N]",
        Breakpoints,
        "delete breakpoint N (all when omitted)",
        "Deletes a breakpoint or watchpoint by number, or all of them.",
        ["delete 1", "delete"]
    ),
    cmd!(
        "enable",
        [],
        "enable N",
        Breakpoints,
        "enable breakpoint N",
        "Enables a breakpoint or watchpoint.",
        ["enable 1"]
    ),
    cmd!(
        "disable",
        [],
        "disable N",
        Breakpoints,
        "disable breakpoint N",
        "Disables a breakpoint or watchpoint without deleting it.",
        ["disable 1"]
    ),
    cmd!(
        "where",
        ["event"],
        "where",
        Inspecting,
        "show the current event and position",
        "Prints the event at the cursor with its number, stage, function, class and attempt.",
        ["where"]
    ),
    cmd!(
        "backtrace",
        ["bt"],
        "backtrace",
        Inspecting,
        "the pipeline stack: event › attempt › class › stage › function",
        "Prints the pipeline as gdb prints a call stack, innermost first: #0 the event at the cursor, then the attempt (or Chaitin-Briggs iteration) it belongs to, its register class, its stage and its function, each with the event number that opened it (`goto N` goes there; `reverse-finish` goes back to the enclosing one). `>` marks the frame `frame`, `up` and `down` selected.",
        ["backtrace", "bt"]
    ),
    cmd!(
        "frame",
        ["f"],
        "frame [N]",
        Inspecting,
        "select frame N of the backtrace (show the selected one without N)",
        "Selects frame N of `backtrace` (0 is the event at the cursor) and prints it with the event that opened it. The selection resets when the cursor moves.",
        ["frame 1", "frame", "f 2"]
    ),
    cmd!(
        "up",
        [],
        "up [N]",
        Inspecting,
        "select the frame N levels out (default 1)",
        "Selects the enclosing frame: from the event to its attempt, its class, its stage, its function.",
        ["up", "up 2"]
    ),
    cmd!(
        "down",
        [],
        "down [N]",
        Inspecting,
        "select the frame N levels in (default 1)",
        "Selects the frame inside the selected one, back towards the event at the cursor (frame 0).",
        ["down", "down 2"]
    ),
    cmd!(
        "display",
        [],
        "display [COMMAND | %VREG]",
        Inspecting,
        "show a command's output after every stop",
        "Adds a command that does not move the cursor (`live`, `hist`, `state +1564`, or a vreg for `print %VREG`) to the list shown after every command that moves it, numbered as in gdb; without an argument shows them all now. `undisplay N` drops one, `info display` lists them.",
        ["display live", "display %x3", "display hist", "display"]
    ),
    cmd!(
        "undisplay",
        [],
        "undisplay [N]",
        Inspecting,
        "drop display N (all when omitted)",
        "Removes an expression added with `display`, or all of them.",
        ["undisplay 1", "undisplay"]
    ),
    cmd!(
        "events",
        [],
        "events [N]",
        Inspecting,
        "list the last N events (default 10)",
        "Lists the events up to the cursor, most recent last.",
        ["events", "events 30"]
    ),
    cmd!(
        "func",
        [],
        "func [NAME]",
        Inspecting,
        "select the function queries look at",
        "Selects the function that `ir`, `live`, `print` … look at; without a name, lists the functions.",
        ["func", "func saxpy"]
    ),
    cmd!(
        "ir",
        [],
        "ir [POINT [COUNT]]",
        Inspecting,
        "show the IR with assignments so far",
        "Shows the current function's IR around POINT (default: the current instruction) with program points, assignments as `%r12→R7`, and spill code marked `*`.",
        ["ir", "ir 10", "ir 0 40"]
    ),
    cmd!(
        "print",
        ["p"],
        "print %VREG",
        Inspecting,
        "show a vreg: flags, cost, constraints, assignment history",
        "Shows a vreg's class, width, decoded flag bits, spill cost, current register, constraint nodes and every decision about it so far. Under Briggs: its node's degree, K, high-degree neighbours, Briggs-safety, spill cost and priority, status and colour, and every Briggs event about it.",
        ["print %r12", "p %rd0"]
    ),
    cmd!(
        "source-view",
        ["list", "l"],
        "source-view [LINE]",
        Inspecting,
        "CUDA source lines with their live registers and spills",
        "For PTX with `.file`/`.loc` (compiled with -lineinfo): each CUDA line of the current function with the registers live at its peak point, the values it defines that are live at the function's peak (\"keeps alive\") and its spill stores (S) and reloads (L), as the allocation stands at the cursor. The source text comes from the file `.file` names (or from --source-dir DIR); without it, the same table by line number. LINE shows ten lines around it.",
        ["source-view", "list 12", "l"]
    ),
    cmd!(
        "live",
        [],
        "live [POINT]",
        Inspecting,
        "live set and pressure at a program point",
        "Shows the vregs live before and after POINT (default: the instruction of the current event) and the pressure of each register file.",
        ["live", "live 12"]
    ),
    cmd!(
        "constraints",
        ["cons"],
        "constraints [%VREG]",
        Inspecting,
        "constraint nodes of a vreg (default: the one being allocated)",
        "Lists constraint nodes: type 0–15, name, target, weight, hard or soft. Under Briggs: the node's neighbours in the interference graph with their colours and status, and the physical registers it may not cover.",
        ["constraints", "constraints %r3"]
    ),
    cmd!(
        "hist",
        ["histogram"],
        "hist",
        Inspecting,
        "primary/secondary histograms of the last assignment",
        "Shows the fat-point histograms of the vreg just assigned: per slot primary and secondary cost, blocked slots, the discard threshold and the chosen slot. Under Briggs: the colour availability of the current node — its class mask and window, which colours its neighbours (or physical registers) forbid, which are free, and the one select chose.",
        ["hist"]
    ),
    cmd!(
        "graph",
        ["briggs"],
        "graph",
        Inspecting,
        "the Chaitin-Briggs graph: simplify stack, worklists, moves, figures",
        "Under `set allocator briggs`: the iteration, the current node, the graph's figures (nodes, edges, pre-coloured, moves, degrees, density, K per file, as built and now), the simplify stack (top last), the simplify/freeze/spill worklists in the order they will be served, and every move with its state. Breakpoints under Briggs: `break assign %x` stops where select colours %x or the node it was coalesced into (`slot` is the colour, `discarded` the number of forbidden colours), `break spill %x` where select finds no colour for it, `break iteration [N]` at the start of each (or the N-th) build-and-colour iteration, `break fail` at a failed allocation.",
        ["graph", "briggs", "break iteration", "break iteration 2"]
    ),
    cmd!(
        "state",
        ["x"],
        "state [+OFFSET]",
        Inspecting,
        "the allocator state object by offset",
        "Prints the allocator state object field by field with ptxas byte offsets; fields changed by the current event are marked `*`. `x` is gdb's name (examine memory): here the memory is the state object.",
        ["state", "state +1564"]
    ),
    cmd!(
        "attempts",
        [],
        "attempts [CLASS]",
        Inspecting,
        "attempts so far per class",
        "Lists NOSPILL/SPILL attempts: class, number, target, used, vregs over budget, result, and the best one. Under Briggs: the build-and-colour iterations — graph size, coalesced moves, nodes simplified, frozen, spill candidates, colours, actual spills and the spill code.",
        ["attempts", "attempts R"]
    ),
    cmd!(
        "abi",
        [],
        "abi",
        Inspecting,
        "ABI checks of the current function",
        "Lists the ABI checks in the seed's validation order with code, verdict and message.",
        ["abi"]
    ),
    cmd!(
        "stats",
        [],
        "stats",
        Inspecting,
        "ptxas -v statistics lines",
        "Prints the `-v` lines of every function whose allocation has finished.",
        ["stats"]
    ),
    cmd!(
        "knobs",
        [],
        "knobs [all]",
        Options,
        "knobs in force (overridden ones, or all)",
        "Lists knobs that differ from their defaults, or the whole catalogue with `all`.",
        ["knobs", "knobs all"]
    ),
    cmd!(
        "set",
        [],
        "set knob NAME=VALUE | set maxrregcount N | set sm SM | set dce on|off | set allocator fatpoint|briggs | set stage PASS on|off | set stop-on-error on|off",
        Options,
        "change a knob or option and re-run what it affects",
        "Changes a knob or run option; the pipeline re-runs from the first stage the change affects and the cursor lands on the equivalent event.",
        [
            "set knob 684=10",
            "set knob RegAllocThresholdForDiscardConflicts=50",
            "set maxrregcount 32",
            "set sm sm_80",
            "set dce on",
            "set allocator briggs",
            "set stop-on-error off"
        ]
    ),
    cmd!(
        "diff",
        [],
        "diff attempts CLASS A B | diff runs | diff state E1 E2 | diff allocators",
        Comparing,
        "compare two attempts, two runs, two events' state, or the two allocators",
        "Unified diffs: per-vreg assignment and spilled set of two attempts of a class; final results before and after the last option change; the allocator state tables after events E1 and E2; the fat-point and Briggs allocators on the current function.",
        ["diff attempts R 0 1", "diff runs", "diff state 10 20", "diff allocators"]
    ),
    cmd!(
        "why",
        [],
        "why registers [FUNCTION] | why spill %VREG | why fail [CLASS] | why launch THREADS [BLOCKS_PER_SM] | why differ",
        Explaining,
        "explain the register count, a spill, a failure, a launch limit or what changed",
        "Answers from the finished run (a side copy runs to the end; the cursor stays), each claim with its source line: `registers` gives the peak-pressure points and the vregs live there, a breakdown that adds up to the reported count, the budget's inputs and the occupancy, and on imported PTX what each pre-allocation stage did to the R peak, in ptxas's terms (facts `prepass-peak-before`, `prepass-peak-after`, `prepass-STAGE-peak`); `spill` the decision, guidance and spill code of a vreg; `fail` each attempt and what blocked the last vreg; `launch` whether a block of THREADS fits the register file; `differ` the first diverging decision between the run before the last `set` and now.",
        [
            "why registers",
            "why registers fir16",
            "why spill %x3",
            "why fail",
            "why fail R",
            "why launch 1024",
            "why launch 256 4",
            "why differ"
        ]
    ),
    cmd!(
        "whatif",
        [],
        "whatif maxrregcount N | whatif knob NAME=V | whatif sm SM | whatif launch-bounds T[,B]",
        Explaining,
        "run the pipeline on the side with one change and print the delta",
        "Runs the whole pipeline with the change on a side copy and prints registers, spill bytes, stack frame, occupancy and attempts before → after per function. The cursor and the session's options do not change.",
        ["whatif maxrregcount 64", "whatif knob 684=10", "whatif sm sm_80", "whatif launch-bounds 256,2"]
    ),
    cmd!(
        "sweep",
        [],
        "sweep [maxrregcount A..B[:STEP] | knob NAME=A..B[:STEP]]",
        Explaining,
        "registers, spill bytes, attempts and occupancy per budget (or knob value), knees marked",
        "Runs the whole pipeline once per value on the side (both cores; the cursor stays) and prints the table with the knees: the fewest registers with no spill and the best occupancy with no spill. Without arguments sweeps the budgets 16 24 32 40 48 56 64 72 80 96 128 168 255. The TUI's Why pane charts the last sweep with the current budget marked.",
        ["sweep", "sweep maxrregcount 16..64:8", "sweep knob RegAllocThresholdForDiscardConflicts=0..100:25"]
    ),
    cmd!(
        "reduce",
        [],
        "reduce [into FILE] PREDICATE",
        Explaining,
        "shrink the loaded kernel to a small one that still shows PREDICATE",
        "Reduces the loaded kernel (Ori IR or PTX) under the session's options (sm, maxrregcount, knobs, allocator) to a small kernel that still shows PREDICATE, writes it to FILE (default NAME.reduced.EXT beside it) and says how to `load` it. PREDICATE: `fails`, `checker-fault`, `spills`, `registers > N` (any comparison), `attempts class R >= N`, `warning 70NN`, `differs-from-ptxas [> K %]` (the real ptxas), `allocators-differ`, `script FILE.radbg` (must replay without a failure), or any `expect` condition (`stats spill-stores > 0`, `%x == spilled` ...). Candidates are tested on every core; the result does not depend on how many. `radbg reduce FILE --until PREDICATE` does the same from the shell, with progress and a time budget. A complete example: `load sgemm_spill.ori; set maxrregcount 8; continue; expect fails; reduce fails; load sgemm_spill.reduced.ori; continue; why fail`.",
        ["reduce fails", "reduce into small.ori registers > 40", "reduce stats spill-stores > 0"]
    ),
    cmd!(
        "expect",
        [],
        "expect %VREG == REG | expect %VREG == spilled | expect attempts class C == N | expect abi CODE | expect stats FIELD == N | expect fails | expect ok | expect event KIND | expect cursor == N | expect why QUESTION FACT == N",
        Sessions,
        "assert a result (a failed expectation makes a replay exit non-zero)",
        "Checks a fact at the cursor; in scripts a failure is reported with its line and the replay exits with status 1. `%VREG == spilled` holds once either allocator has spilled the vreg; the other facts hold for Chaitin-Briggs runs too.",
        [
            "expect %r12 == R7",
            "expect %r12 == spilled",
            "expect attempts class R == 3",
            "expect abi 7004",
            "expect stats spill-stores == 64",
            "expect fails",
            "expect ok",
            "expect event assign",
            "expect cursor == 10",
            "expect why registers peak == 96",
            "expect why launch 1024 fits == 1"
        ]
    ),
    cmd!(
        "export",
        [],
        "export json[!] FILE [trace|QUERY]",
        Sessions,
        "write the trace or a query as JSON",
        "Writes the whole trace (default) or one query's result (ir, live, constraints, hist, state, attempts, abi, stats, knobs, graph) to FILE as JSON. An existing FILE is left alone (an error) unless the format is written json!, which overwrites it.",
        ["export json out.json", "export json state.json state", "export json! out.json"]
    ),
    cmd!(
        "source",
        [],
        "source FILE",
        Sessions,
        "run the commands of a .radbg file",
        "Runs FILE's commands in this session as if typed, printing their output (not the commands); the first error stops it and names FILE:LINE. Relative paths resolve as `load`'s do.",
        ["source sessions/basics.radbg"]
    ),
    cmd!(
        "echo",
        [],
        "echo TEXT",
        Sessions,
        "print text",
        "Prints the rest of the line (useful in scripts).",
        ["echo checking the spill"]
    ),
    cmd!(
        "help",
        ["h", "?"],
        "help [COMMAND]",
        Sessions,
        "list commands or explain one",
        "Without an argument lists every command by category; with one shows its synopsis, help and examples.",
        ["help", "help break"]
    ),
    cmd!(
        "quit",
        ["q", "exit"],
        "quit",
        Sessions,
        "leave radbg",
        "Leaves the REPL or the TUI (in a script: stops the replay).",
        ["quit"]
    ),
];

/// The entry for a name or alias.
pub fn find(word: &str) -> Option<&'static CommandSpec> {
    COMMANDS.iter().find(|c| c.name == word || c.aliases.contains(&word))
}

/// Every name and alias, for completion and suggestions.
pub fn all_words() -> impl Iterator<Item = &'static str> {
    COMMANDS.iter().flat_map(|c| std::iter::once(c.name).chain(c.aliases.iter().copied()))
}

/// Words gdb users type that radbg has under another name or not at all, with the
/// radbg command to use. `suggest` reads this before guessing by spelling.
pub const GDB_WORDS: &[(&str, &str)] = &[
    ("disassemble", "ir"),
    ("disas", "ir"),
    ("jump", "goto"),
    ("kill", "run"),
    ("rwatch", "watch"),
    ("awatch", "watch"),
    ("ptype", "print"),
    ("whatis", "print"),
    ("return", "finish"),
    ("checkpoint", "goto"),
    ("restart", "goto"),
    ("record", "reverse-step"),
    ("watchpoints", "info"),
    ("breakpoints", "info"),
    ("registers", "info"),
    ("locals", "info"),
];

/// A "did you mean" for an unknown command word: gdb's word for a radbg command first
/// (`disassemble` → `ir`), then a unique prefix of a name (`backt` → `backtrace`), then
/// the closest name or alias by edit distance (`backtrce` → `backtrace`).
pub fn suggest(word: &str) -> Option<String> {
    if let Some((_, to)) = GDB_WORDS.iter().find(|(w, _)| *w == word) {
        let how = match *to {
            "info" => format!("info {word}"),
            "goto" => "goto N (radbg keeps every event: goto and reverse-step go anywhere)".to_string(),
            "reverse-step" => "reverse-step (radbg records every run; no 'record' needed)".to_string(),
            other => other.to_string(),
        };
        return Some(format!("gdb's '{word}' is '{how}' here"));
    }
    let prefixed: Vec<&str> = COMMANDS.iter().map(|c| c.name).filter(|n| n.starts_with(word)).collect();
    if let [one] = prefixed.as_slice()
        && word.len() >= 2
    {
        return Some(format!("did you mean '{one}'?"));
    }
    crate::util::closest(word, all_words()).map(|s| format!("did you mean '{s}'?"))
}
