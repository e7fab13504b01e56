//! Typed settings: one [`Setting`] for each thing a user may change about a run —
//! `set …` in the command language and the pipeline flags of the command line
//! (`--knob`, `--sm`, `--maxrregcount`, `--allocator`, `--dce`, `--disable-stage`).
//!
//! One parser: the command parser (`command::parse`) and clap's value parsers
//! (`cli`) both call the functions here, so a value means the same and is refused
//! with the same words wherever it is typed. A knob is resolved here once — name or
//! index to its catalogue entry, value type- and range-checked ([`ResolvedKnob`]) —
//! and reaches the engine typed: nothing below parses knob text again. Applying a
//! setting to [`RunOptions`] is [`RunOptions::apply`], the one place each setting
//! takes effect, shared by `set` and the command line; recording a session writes a
//! setting back out as its `set` command ([`Setting`]'s `Display`).

use std::fmt;

use crate::engine::{AllocatorKind, RunOptions, Stage};
use crate::ir::{KnobKey, KnobValue, Sm};
use crate::knobs::{self, KnobError, KnobInfo, Knobs};

/// Why a setting's value was refused. The message names the value; the caller adds
/// where it was typed (the command's word under a caret, or clap's `--flag`).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SettingError {
    #[error(transparent)]
    Knob(#[from] KnobError),
    /// A knob setting without `=`.
    #[error("expected NAME=VALUE or INDEX=VALUE, found '{0}'")]
    KnobAssignment(String),
    /// `Sm::parse`'s reason.
    #[error("{0}")]
    Sm(String),
    #[error("expected a register count, found '{0}'")]
    NotACount(String),
    #[error("maxrregcount must be at least 1")]
    ZeroBudget,
    #[error("a register count {0} is out of range (at most {MAX_REG_COUNT})")]
    BudgetTooLarge(u64),
    #[error("unknown allocator '{0}'")]
    UnknownAllocator(String),
    #[error("expected on or off, found '{0}'")]
    NotOnOff(String),
    #[error("unknown stage '{name}' ({})", match suggestion {
        Some(s) => format!("did you mean '{s}'?"),
        None => format!("stages: {}", crate::prepass::stage_names().join(" ")),
    })]
    UnknownStage { name: String, suggestion: Option<&'static str> },
}

/// The largest `--maxrregcount` / `set maxrregcount` (ptxas takes a 16-bit count).
pub const MAX_REG_COUNT: u32 = 65535;

/// A knob resolved against the catalogue: its entry and its checked value.
#[derive(Clone, Debug)]
pub struct ResolvedKnob {
    pub info: &'static KnobInfo,
    pub value: KnobValue,
    /// The value as the user wrote it (`on`, `0x10`), echoed in `knob NAME=VALUE`.
    written_value: String,
    /// The whole setting as written (`684=80`, spaces dropped), recorded as written.
    written: String,
}

impl PartialEq for ResolvedKnob {
    fn eq(&self, other: &ResolvedKnob) -> bool {
        std::ptr::eq(self.info, other.info) && self.value == other.value && self.written == other.written
    }
}

impl ResolvedKnob {
    /// Resolves `NAME=VALUE` or `INDEX=VALUE` (spaces around `=` allowed): the one knob
    /// parser of the command line, `set knob`, `whatif knob` and `--against-knob`.
    pub fn parse(assignment: &str) -> Result<ResolvedKnob, SettingError> {
        let written: String = assignment.split_whitespace().collect();
        let (k, v) = written.split_once('=').ok_or_else(|| SettingError::KnobAssignment(written.clone()))?;
        let info = knob_name(k)?;
        Ok(ResolvedKnob {
            info,
            value: knobs::check(info, &knobs::parse_value(v))?,
            written_value: v.to_string(),
            written: written.clone(),
        })
    }

    /// Resolves a key and a typed value (code that sets a knob: tests, benches).
    pub fn new(key: &KnobKey, value: &KnobValue) -> Result<ResolvedKnob, KnobError> {
        let info = ResolvedKnob::lookup(key)?;
        let value = knobs::check(info, value)?;
        let shown = match &value {
            KnobValue::Str(s) => s.clone(),
            v => knobs::show(v),
        };
        Ok(ResolvedKnob { info, written: format!("{}={shown}", info.name), written_value: shown, value })
    }

    /// The catalogue entry of a key, or why there is none (with a did-you-mean).
    fn lookup(key: &KnobKey) -> Result<&'static KnobInfo, KnobError> {
        knobs::find(key).ok_or_else(|| KnobError::Unknown {
            key: match key {
                KnobKey::Name(n) => n.clone(),
                KnobKey::Index(i) => i.to_string(),
            },
            suggestion: match key {
                KnobKey::Name(n) => knobs::suggest(n),
                KnobKey::Index(_) => None,
            },
        })
    }

    /// The stage a change of this knob re-runs from: the CFG's block frequencies
    /// depend on the loop-weight knobs, everything else on the budget onwards.
    pub fn restart_stage(&self) -> Stage {
        if knobs::affects_cfg(self.info) { Stage::Prepass } else { Stage::Budget }
    }

    /// The setting as written (`684=80`): what a recording replays.
    pub fn as_written(&self) -> &str {
        &self.written
    }
}

/// `NAME=VALUE` with the catalogue's name and the value as written.
impl fmt::Display for ResolvedKnob {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}", self.info.name, self.written_value)
    }
}

/// One change to a run (`set WHAT VALUE`), its value parsed and checked.
#[derive(Clone, Debug, PartialEq)]
pub enum Setting {
    Knob(ResolvedKnob),
    MaxRegCount(u32),
    Sm(Sm),
    Dce(bool),
    Allocator(AllocatorKind),
    /// A pre-allocation stage of imported PTX (or a fidelity rule) switched on or off.
    Stage(&'static str, bool),
    /// Whether a script stops at its first error (a session setting, not a run option).
    StopOnError(bool),
}

fn on_off_word(b: bool) -> &'static str {
    if b { "on" } else { "off" }
}

impl Setting {
    /// The stage the pipeline re-runs from after this setting changes; `None` for a
    /// setting that does not change the run.
    pub fn restart_stage(&self) -> Option<Stage> {
        Some(match self {
            Setting::Knob(k) => k.restart_stage(),
            Setting::MaxRegCount(_) | Setting::Sm(_) | Setting::Dce(_) | Setting::Stage(..) => Stage::Prepass,
            Setting::Allocator(_) => Stage::Alloc,
            Setting::StopOnError(_) => return None,
        })
    }

    /// What `set` reports having done (`knob RegAllocNumNonSpillTrials=4`).
    pub fn label(&self) -> String {
        match self {
            Setting::Knob(k) => format!("knob {k}"),
            other => other.words(),
        }
    }

    /// The words after `set`, as the command parser reads them back.
    fn words(&self) -> String {
        match self {
            Setting::Knob(k) => format!("knob {}", k.as_written()),
            Setting::MaxRegCount(n) => format!("maxrregcount {n}"),
            Setting::Sm(sm) => format!("sm {sm}"),
            Setting::Dce(b) => format!("dce {}", on_off_word(*b)),
            Setting::Allocator(a) => format!("allocator {}", a.name()),
            Setting::Stage(name, on) => format!("stage {name} {}", on_off_word(*on)),
            Setting::StopOnError(b) => format!("stop-on-error {}", on_off_word(*b)),
        }
    }
}

/// The `set` command that makes this setting (what a recording writes).
impl fmt::Display for Setting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "set {}", self.words())
    }
}

impl RunOptions {
    /// Applies a setting: the one place each takes effect, for `set` and the command
    /// line alike. Later settings win (a knob set twice keeps the later value).
    pub fn apply(&mut self, s: &Setting) {
        match s {
            Setting::Knob(k) => self.knobs.push(k.clone()),
            Setting::MaxRegCount(n) => self.maxrregcount = Some(*n),
            Setting::Sm(sm) => self.sm = Some(sm.clone()),
            Setting::Dce(b) => self.dce = *b,
            Setting::Allocator(a) => self.allocator = *a,
            Setting::Stage(name, true) => {
                self.disabled_passes.remove(*name);
            }
            Setting::Stage(name, false) => {
                self.disabled_passes.insert(name.to_string());
            }
            Setting::StopOnError(_) => {}
        }
    }
}

/// The knobs in force for a module's `.knob` lines under `opts`: the catalogue's
/// defaults, then the module's lines, then the options' knobs (later wins).
///
/// `ir::validate` refuses a module whose `.knob` line does not resolve when it is
/// loaded, naming file:line:col, so every module that reaches the engine resolves;
/// one built in code without validating keeps the default for such a line (and a
/// debug build stops on it, as the bug it is).
pub fn knobs_in_force(module_knobs: &[crate::ir::KnobSetting], opts: &RunOptions) -> Knobs {
    let mut knobs = Knobs::new();
    for k in module_knobs {
        let set = knobs.set(&k.key, &k.value);
        debug_assert!(set.is_ok(), "an unvalidated module reached the engine: {set:?}");
    }
    for k in &opts.knobs {
        knobs.set_checked(k.info, k.value.clone());
    }
    knobs
}

// ------------------------------------------------------------ value parsers
// Each takes the text as typed, with no knowledge of where; `command::parse` puts the
// error under a caret and clap names the flag.

/// A knob setting, `NAME=VALUE` or `INDEX=VALUE`.
pub fn knob(text: &str) -> Result<ResolvedKnob, SettingError> {
    ResolvedKnob::parse(text)
}

/// A knob's name or index (`sweep knob NAME=A..B` names one before its values).
pub fn knob_name(text: &str) -> Result<&'static KnobInfo, SettingError> {
    let key = match text.trim().parse::<u32>() {
        Ok(i) => KnobKey::Index(i),
        Err(_) => KnobKey::Name(text.trim().to_string()),
    };
    Ok(ResolvedKnob::lookup(&key)?)
}

/// A target, `sm_90`.
pub fn sm(text: &str) -> Result<Sm, SettingError> {
    Sm::parse(text).map_err(SettingError::Sm)
}

/// A register budget, 1..=65535.
pub fn maxrregcount(text: &str) -> Result<u32, SettingError> {
    let n: u64 = text.parse().map_err(|_| SettingError::NotACount(text.to_string()))?;
    match n {
        0 => Err(SettingError::ZeroBudget),
        n if n > MAX_REG_COUNT as u64 => Err(SettingError::BudgetTooLarge(n)),
        n => Ok(n as u32),
    }
}

/// An allocator name or one of its other spellings ([`AllocatorKind::from_name`]).
pub fn allocator(text: &str) -> Result<AllocatorKind, SettingError> {
    AllocatorKind::from_name(text).ok_or_else(|| SettingError::UnknownAllocator(text.to_string()))
}

/// A switchable pre-allocation stage or fidelity rule (`prepass::stage_names`).
pub fn stage(text: &str) -> Result<&'static str, SettingError> {
    let names = crate::prepass::stage_names();
    names.iter().copied().find(|n| *n == text).ok_or_else(|| SettingError::UnknownStage {
        name: text.to_string(),
        suggestion: crate::util::closest(text, names.iter().copied()),
    })
}

/// Targets completion offers for `set sm` and `whatif sm` (the parser takes any
/// `sm_NN` from sm_10 to sm_130, with an `a` or `f` suffix).
pub const SM_EXAMPLES: &[&str] = &["sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120"];

/// `on`/`off` and their other spellings.
pub fn on_off(text: &str) -> Result<bool, SettingError> {
    if ON_WORDS.contains(&text) {
        Ok(true)
    } else if OFF_WORDS.contains(&text) {
        Ok(false)
    } else {
        Err(SettingError::NotOnOff(text.to_string()))
    }
}

/// The words [`on_off`] takes for on and for off, the canonical one first.
pub const ON_WORDS: &[&str] = &["on", "true", "yes", "1"];
pub const OFF_WORDS: &[&str] = &["off", "false", "no", "0"];

#[cfg(test)]
mod tests {
    use super::*;

    /// A knob is resolved once: by name or index to one entry, its value checked.
    #[test]
    fn knobs_resolve_by_name_or_index() {
        let by_index = knob("684 = 80").unwrap();
        let by_name = knob("RegAllocThresholdForDiscardConflicts=80").unwrap();
        assert!(std::ptr::eq(by_index.info, by_name.info));
        assert_eq!(by_index.value, KnobValue::Int(80));
        assert_eq!(by_index.to_string(), "RegAllocThresholdForDiscardConflicts=80");
        assert_eq!(by_index.as_written(), "684=80");
        assert_eq!(knob("684").unwrap_err().to_string(), "expected NAME=VALUE or INDEX=VALUE, found '684'");
        assert!(matches!(knob("684=true"), Err(SettingError::Knob(KnobError::WrongType { .. }))));
        assert!(matches!(knob("684=-1"), Err(SettingError::Knob(KnobError::OutOfRange { .. }))));
        assert_eq!(knob("NoSuchKnob=1").unwrap_err().to_string(), "unknown knob 'NoSuchKnob'");
    }

    #[test]
    fn values_are_checked_once() {
        assert_eq!(maxrregcount("24"), Ok(24));
        assert_eq!(maxrregcount("0"), Err(SettingError::ZeroBudget));
        assert_eq!(maxrregcount("65536"), Err(SettingError::BudgetTooLarge(65536)));
        assert_eq!(maxrregcount("x"), Err(SettingError::NotACount("x".into())));
        assert_eq!(allocator("cicc"), Ok(AllocatorKind::Briggs));
        assert!(allocator("linear").is_err());
        assert_eq!(on_off("yes"), Ok(true));
        assert!(on_off("maybe").is_err());
        assert!(sm("sm_9").is_err());
        assert!(SM_EXAMPLES.iter().all(|s| sm(s).is_ok()));
        assert_eq!(stage("sink"), Ok("sink"));
        assert_eq!(stage("snk").unwrap_err().to_string(), "unknown stage 'snk' (did you mean 'sink'?)");
    }

    /// What a recording writes parses back to the same setting.
    #[test]
    fn settings_write_out_as_their_set_command() {
        let all = [
            Setting::Knob(knob("639=4").unwrap()),
            Setting::MaxRegCount(40),
            Setting::Sm(sm("sm_80").unwrap()),
            Setting::Dce(true),
            Setting::Allocator(AllocatorKind::Briggs),
            Setting::Stage(stage("schedule").unwrap(), false),
            Setting::StopOnError(false),
        ];
        let shown: Vec<String> = all.iter().map(|s| s.to_string()).collect();
        assert_eq!(
            shown,
            [
                "set knob 639=4",
                "set maxrregcount 40",
                "set sm sm_80",
                "set dce on",
                "set allocator briggs",
                "set stage schedule off",
                "set stop-on-error off"
            ]
        );
        let mut opts = RunOptions::default();
        for s in &all {
            opts.apply(s);
        }
        assert_eq!(opts.maxrregcount, Some(40));
        assert_eq!(opts.allocator, AllocatorKind::Briggs);
        assert!(!opts.stage_on("schedule"));
        assert_eq!(opts.knobs.len(), 1);
    }
}
