//! The debugger's event trace, stored compactly: the allocator's per-vreg events
//! (`Constraints`, `Assign`; 93 % of the 3.1 M events of the 50 MB many-entry file) as
//! a few bytes each, every other event as it is.
//!
//! An [`Event`] is 64 bytes (the largest variant sizes them all); a packed per-vreg
//! event is a tag, the function and its fields as variable-length integers (the cost of
//! `Constraints` as the f64's 8 bytes), about 15 bytes, and each event has a 4-byte slot
//! saying where it is (issue 25: the trace was 211 MB of the 50 MB file's run). Reading
//! an event gives a [`Cow`]: a packed one is decoded (no heap: its fields are plain
//! numbers), any other borrowed. An event that does not pack (a field out of range)
//! stays whole, so what is read back always equals what was pushed
//! (`tests/engine_memory.rs` compares traces with the old debugger's).
//!
//! A finished function's allocation events can be dropped and given back by running its
//! allocation again ([`Trace::elide`]; the allocators are deterministic): on the 50 MB
//! many-entry file their packed bytes were 44 MB and their slots 12 MB of the debugger's
//! 590 MB. Only functions whose allocation is short are elided, so a read gives its
//! event back in a few milliseconds; the last run replayed is kept for reads in order.
//!
//! Owns: the trace's storage and its read-only views ([`Events`], also over a plain slice
//! of events for the side runs of `why` and `differ`). Must not know the machine.

use std::borrow::Cow;
use std::sync::{Arc, Mutex};

use crate::alloc::AllocEvent;
use crate::alloc::event::Assign;
use crate::alloc::order::List;
use crate::engine::event::{Event, EventKind};
use crate::ir::{RegClass, VRegId};

/// A slot with this bit set is a packed event at the byte offset below it; otherwise the
/// index of a whole event.
const PACKED: u32 = 1 << 31;

const TAG_CONSTRAINTS: u8 = 1;
const TAG_ASSIGN: u8 = 2;

/// Gives back the events of a dropped run, in order (`None` when it cannot: then the
/// events read as absent, which a deterministic replay never causes).
pub type Replay = Arc<dyn Fn() -> Option<Vec<Event>> + Send + Sync>;

/// A run of events dropped from the trace: where it starts, how many events it has, how
/// many were dropped before it (so the slots of the events after it are found), and how
/// to get them back.
#[derive(Clone)]
struct Elided {
    start: usize,
    len: usize,
    before: usize,
    replay: Replay,
}

/// Where event `i` is held.
enum Loc {
    /// Its slot.
    Slot(usize),
    /// In elided run `k`.
    Run(usize),
}

/// The events of a run, in order.
#[derive(Default)]
pub struct Trace {
    /// One per event held, in order: the events of elided runs have none.
    slots: Vec<u32>,
    whole: Vec<Event>,
    bytes: Vec<u8>,
    /// Ascending by start, not overlapping.
    elided: Vec<Elided>,
    /// The elided run read last, and its events (reads go in order, mostly).
    replayed: Mutex<Option<(usize, Arc<Vec<Event>>)>>,
}

impl Clone for Trace {
    fn clone(&self) -> Trace {
        Trace {
            slots: self.slots.clone(),
            whole: self.whole.clone(),
            bytes: self.bytes.clone(),
            elided: self.elided.clone(),
            replayed: Mutex::new(None),
        }
    }
}

impl Trace {
    pub fn new() -> Trace {
        Trace::default()
    }

    /// Events dropped in elided runs.
    fn dropped(&self) -> usize {
        self.elided.last().map_or(0, |e| e.before + e.len)
    }

    pub fn len(&self) -> usize {
        self.slots.len() + self.dropped()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn locate(&self, i: usize) -> Loc {
        let k = self.elided.partition_point(|e| e.start <= i);
        match k.checked_sub(1).map(|k| (k, &self.elided[k])) {
            Some((k, e)) if i < e.start + e.len => Loc::Run(k),
            Some((_, e)) => Loc::Slot(i - e.before - e.len),
            None => Loc::Slot(i),
        }
    }

    /// Appends an event.
    pub fn push(&mut self, ev: Event) {
        // Grown by an eighth, not doubled: the trace is most of what a long run holds,
        // and a doubled vector sits up to half empty.
        fn room<T>(v: &mut Vec<T>, extra: usize) {
            if v.len() + extra > v.capacity() {
                v.reserve_exact(v.len() / 8 + extra.max(64));
            }
        }
        room(&mut self.slots, 1);
        // The packed bytes too: doubled, they sat up to half empty (4.4 MB held in 8.4 MB
        // on the 5 MB many-entry file). A packed event is under 128 bytes.
        room(&mut self.bytes, 128);
        let at = self.bytes.len();
        if at < PACKED as usize && pack(&ev, &mut self.bytes) {
            self.slots.push(PACKED | at as u32);
            return;
        }
        self.bytes.truncate(at);
        if self.whole.len() >= PACKED as usize {
            // Beyond what a slot can index: nothing the debugger would reach (2^31 events).
            return;
        }
        room(&mut self.whole, 1);
        self.slots.push(self.whole.len() as u32);
        self.whole.push(ev);
    }

    /// Keeps the first `n` events.
    pub fn truncate(&mut self, n: usize) {
        if n >= self.len() {
            return;
        }
        // A run that starts among the events kept keeps those events.
        self.elided.retain(|e| e.start < n);
        if let Some(e) = self.elided.last_mut() {
            e.len = e.len.min(n - e.start);
        }
        *self.replayed.get_mut().unwrap_or_else(std::sync::PoisonError::into_inner) = None;
        let keep = n - self.dropped().min(n);
        // The storage of the events kept ends where the first event dropped of each kind starts.
        let dropped = &self.slots[keep.min(self.slots.len())..];
        if let Some(&s) = dropped.iter().find(|&&s| s & PACKED != 0) {
            self.bytes.truncate((s & !PACKED) as usize);
        }
        if let Some(&s) = dropped.iter().find(|&&s| s & PACKED == 0) {
            self.whole.truncate(s as usize);
        }
        self.slots.truncate(keep);
    }

    /// Event `i`.
    pub fn get(&self, i: usize) -> Option<Cow<'_, Event>> {
        let s = match self.locate(i) {
            Loc::Run(k) => return self.replayed(k, i).map(Cow::Owned),
            Loc::Slot(s) => *self.slots.get(s)?,
        };
        if s & PACKED == 0 {
            return self.whole.get(s as usize).map(Cow::Borrowed);
        }
        unpack(self.bytes.get((s & !PACKED) as usize..)?).map(Cow::Owned)
    }

    /// The event `i` when it is held whole (not packed, not in an elided run).
    fn get_whole(&self, i: usize) -> Option<&Event> {
        let Loc::Slot(s) = self.locate(i) else { return None };
        let s = *self.slots.get(s)?;
        if s & PACKED == 0 { self.whole.get(s as usize) } else { None }
    }

    /// Event `i` of elided run `k`, replaying the run unless it was the last one read.
    fn replayed(&self, k: usize, i: usize) -> Option<Event> {
        let e = self.elided.get(k)?;
        let mut cache = self.replayed.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let events = match &*cache {
            Some((at, evs)) if *at == k => evs.clone(),
            _ => {
                let evs = Arc::new((e.replay)()?);
                *cache = Some((k, evs.clone()));
                evs
            }
        };
        events.get(i.checked_sub(e.start)?).cloned()
    }

    /// Drops events `start..end`, which `replay` gives back (it returns at least those,
    /// from `start` on, in order: the caller's promise, kept by a deterministic
    /// allocator). They must follow every run dropped before, and the events after them
    /// must be whole (then their bytes are the last ones held): otherwise nothing is
    /// dropped and false comes back.
    pub fn elide(&mut self, start: usize, end: usize, replay: Replay) -> bool {
        let before = self.dropped();
        if start < before || end <= start || end > self.len() {
            return false;
        }
        if self.elided.last().is_some_and(|e| e.start + e.len > start) {
            return false;
        }
        let (s0, s1) = (start - before, end - before);
        if self.slots[s1..].iter().any(|&s| s & PACKED != 0) {
            return false;
        }
        let run = &self.slots[s0..s1];
        if let Some(&s) = run.iter().find(|&&s| s & PACKED != 0) {
            self.bytes.truncate((s & !PACKED) as usize);
        }
        // The run's whole events are consecutive in `whole`; the ones after the run
        // move down.
        let n = run.iter().filter(|&&s| s & PACKED == 0).count();
        if let Some(&w0) = run.iter().find(|&&s| s & PACKED == 0) {
            self.whole.drain(w0 as usize..w0 as usize + n);
            for s in &mut self.slots[s1..] {
                *s -= n as u32;
            }
        }
        self.slots.drain(s0..s1);
        self.elided.push(Elided { start, len: end - start, before, replay });
        *self.replayed.get_mut().unwrap_or_else(std::sync::PoisonError::into_inner) = None;
        true
    }

    /// All events.
    pub fn events(&self) -> Events<'_> {
        Events::Packed(self, 0..self.len())
    }

    /// Bytes held (for tests that the trace stays compact).
    pub fn heap_bytes(&self) -> usize {
        self.slots.capacity() * 4
            + self.whole.capacity() * std::mem::size_of::<Event>()
            + self.bytes.capacity()
            + self.elided.capacity() * std::mem::size_of::<Elided>()
    }
}

impl std::fmt::Debug for Trace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.events().fmt(f)
    }
}

/// A read-only run of events: a range of a [`Trace`], or a slice of whole events.
#[derive(Clone)]
pub enum Events<'a> {
    Packed(&'a Trace, std::ops::Range<usize>),
    Slice(&'a [Event]),
}

impl<'a> From<&'a [Event]> for Events<'a> {
    fn from(s: &'a [Event]) -> Events<'a> {
        Events::Slice(s)
    }
}

impl<'a> From<&'a Vec<Event>> for Events<'a> {
    fn from(s: &'a Vec<Event>) -> Events<'a> {
        Events::Slice(s)
    }
}

impl<'a> Events<'a> {
    pub fn len(&self) -> usize {
        match self {
            Events::Packed(_, r) => r.len(),
            Events::Slice(s) => s.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Event `i` of this run.
    pub fn get(&self, i: usize) -> Option<Cow<'a, Event>> {
        match self {
            Events::Packed(t, r) => r.clone().nth(i).and_then(|k| t.get(k)),
            Events::Slice(s) => s.get(i).map(Cow::Borrowed),
        }
    }

    /// Events `range` of this run (clamped to it).
    pub fn slice(&self, range: std::ops::Range<usize>) -> Events<'a> {
        let end = range.end.min(self.len());
        let start = range.start.min(end);
        match self {
            Events::Packed(t, r) => Events::Packed(t, r.start + start..r.start + end),
            Events::Slice(s) => Events::Slice(&s[start..end]),
        }
    }

    /// The first `n` events.
    pub fn upto(&self, n: usize) -> Events<'a> {
        self.slice(0..n)
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = Cow<'a, Event>> + ExactSizeIterator + use<'a> {
        let this = self.clone();
        (0..self.len()).map(move |i| this.get(i).expect("in range"))
    }

    /// The events stored whole, with their index in this run: every event but the
    /// packed per-vreg events of the fat-point allocator (`Constraints`, `Assign`) and
    /// the events of elided runs (finished fat-point allocations: `Trace::elide`),
    /// borrowed for as long as the trace.
    pub fn whole(&self) -> impl DoubleEndedIterator<Item = (usize, &'a Event)> + use<'a> {
        let (t, r, s): (Option<&'a Trace>, std::ops::Range<usize>, &'a [Event]) = match self {
            Events::Packed(t, r) => (Some(*t), r.clone(), &[]),
            Events::Slice(s) => (None, 0..s.len(), *s),
        };
        let start = r.start;
        r.filter_map(move |k| match t {
            Some(t) => t.get_whole(k).map(|e| (k - start, e)),
            None => Some((k, &s[k])),
        })
    }

    /// The events as whole events (for tests and small runs).
    pub fn to_vec(&self) -> Vec<Event> {
        self.iter().map(Cow::into_owned).collect()
    }
}

impl PartialEq for Events<'_> {
    fn eq(&self, other: &Events<'_>) -> bool {
        self.len() == other.len() && self.iter().zip(other.iter()).all(|(a, b)| a == b)
    }
}

impl PartialEq for Trace {
    fn eq(&self, other: &Trace) -> bool {
        self.events() == other.events()
    }
}

impl std::fmt::Debug for Events<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

fn put(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Reads a variable-length integer at `*at`.
fn take(b: &[u8], at: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let x = *b.get(*at)?;
        *at += 1;
        v |= u64::from(x & 0x7f) << shift;
        if x & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

fn take32(b: &[u8], at: &mut usize) -> Option<u32> {
    take(b, at).and_then(|v| u32::try_from(v).ok())
}

fn class_code(c: RegClass) -> u8 {
    RegClass::ALL.iter().position(|&x| x == c).unwrap_or(0) as u8
}

fn list_code(l: List) -> u8 {
    List::ALL.iter().position(|&x| x == l).unwrap_or(0) as u8
}

/// Appends `ev` packed; false (with whatever was written left for the caller to drop)
/// when it is not a per-vreg event of a function.
fn pack(ev: &Event, out: &mut Vec<u8>) -> bool {
    let Some(func) = ev.func else { return false };
    match &ev.kind {
        EventKind::Alloc(AllocEvent::Constraints { class, attempt, vreg, nodes, interference, cost }) => {
            out.push(TAG_CONSTRAINTS);
            put(out, func as u64);
            out.push(class_code(*class));
            for v in [*attempt, vreg.0, *nodes, *interference] {
                put(out, u64::from(v));
            }
            out.extend_from_slice(&cost.to_bits().to_le_bytes());
            true
        }
        EventKind::Alloc(AllocEvent::Assign(a)) => {
            out.push(TAG_ASSIGN);
            put(out, func as u64);
            out.push(class_code(a.class) | list_code(a.list) << 4);
            let slot = a.slot.map_or(0, |s| u32::from(s) + 1);
            for v in [a.attempt, a.index, a.vreg.0, slot, a.cost, a.secondary, a.discarded, a.blocked] {
                put(out, u64::from(v));
            }
            out.push(u8::from(a.needs_spill));
            true
        }
        _ => false,
    }
}

fn unpack(b: &[u8]) -> Option<Event> {
    let at = &mut 1usize;
    let tag = *b.first()?;
    let func = usize::try_from(take(b, at)?).ok()?;
    let code = *b.get(*at)?;
    *at += 1;
    let class = *RegClass::ALL.get(usize::from(code & 0xf))?;
    let kind = match tag {
        TAG_CONSTRAINTS => {
            let (attempt, vreg, nodes, interference) = (take32(b, at)?, take32(b, at)?, take32(b, at)?, take32(b, at)?);
            let cost = f64::from_bits(u64::from_le_bytes(b.get(*at..*at + 8)?.try_into().ok()?));
            AllocEvent::Constraints { class, attempt, vreg: VRegId(vreg), nodes, interference, cost }
        }
        TAG_ASSIGN => {
            let list = *List::ALL.get(usize::from(code >> 4))?;
            let mut v = [0u32; 8];
            for x in &mut v {
                *x = take32(b, at)?;
            }
            let [attempt, index, vreg, slot, cost, secondary, discarded, blocked] = v;
            let slot = match slot {
                0 => None,
                s => Some(u16::try_from(s - 1).ok()?),
            };
            let needs_spill = *b.get(*at)? != 0;
            AllocEvent::Assign(Assign {
                class,
                attempt,
                index,
                vreg: VRegId(vreg),
                list,
                slot,
                cost,
                secondary,
                discarded,
                blocked,
                needs_spill,
            })
        }
        _ => return None,
    };
    Some(Event { func: Some(func), kind: EventKind::Alloc(kind) })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assign(vreg: u32, slot: Option<u16>, cost: u32) -> Event {
        Event {
            func: Some(7),
            kind: EventKind::Alloc(AllocEvent::Assign(Assign {
                class: RegClass::UR,
                attempt: 2,
                index: 300,
                vreg: VRegId(vreg),
                list: List::LargeVec,
                slot,
                cost,
                secondary: u32::MAX,
                discarded: 0,
                blocked: 5,
                needs_spill: true,
            })),
        }
    }

    fn constraints(cost: f64) -> Event {
        Event {
            func: Some(1 << 40),
            kind: EventKind::Alloc(AllocEvent::Constraints {
                class: RegClass::P,
                attempt: 0,
                vreg: VRegId(u32::MAX),
                nodes: 3,
                interference: 1 << 20,
                cost,
            }),
        }
    }

    #[test]
    fn what_is_pushed_reads_back_and_truncates() {
        let evs = vec![
            Event { func: None, kind: EventKind::Done },
            assign(3, Some(0), 1),
            assign(70000, None, 0),
            constraints(1.5),
            constraints(f64::NAN.copysign(-1.0)),
            assign(9, Some(u16::MAX), 12),
            Event { func: Some(2), kind: EventKind::Check { errors: vec!["x".into()] } },
            constraints(-0.0),
        ];
        let mut t = Trace::new();
        for e in &evs {
            t.push(e.clone());
        }
        assert_eq!(t.len(), evs.len());
        let back = t.events().to_vec();
        // NaN is not equal to itself: compare by the debug text, which spells every field.
        assert_eq!(format!("{back:?}"), format!("{evs:?}"));
        assert_eq!(t.whole.len(), 2, "the per-vreg events are packed");
        for n in (0..=evs.len()).rev() {
            t.truncate(n);
            assert_eq!(format!("{:?}", t.events().to_vec()), format!("{:?}", &evs[..n]));
            t.push(evs[n.min(evs.len() - 1)].clone());
            t.truncate(n);
        }
        let s = Events::from(&evs[..]);
        assert_eq!(s.slice(1..3).len(), 2);
        assert!(t.is_empty());
    }

    #[test]
    fn an_elided_run_reads_back_from_its_replay_and_truncates() {
        let start = Event { func: Some(7), kind: EventKind::Check { errors: vec!["start".into()] } };
        let mut run: Vec<Event> = (0..40).map(|k| assign(k, Some(k as u16), k)).collect();
        run.insert(20, start.clone());
        let check = Event { func: Some(7), kind: EventKind::Check { errors: Vec::new() } };
        let head = [Event { func: None, kind: EventKind::Done }, assign(99, None, 0)];
        let all: Vec<Event> = head.iter().chain(&run).chain([&check]).cloned().collect();
        let mut t = Trace::new();
        for e in &all {
            t.push(e.clone());
        }
        let replays = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let (r, n) = (run.clone(), replays.clone());
        let replay: Replay = Arc::new(move || {
            n.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            Some(r.clone())
        });
        // Not at the end with packed events after it, nor overlapping: refused.
        assert!(!t.elide(0, 1, replay.clone()));
        assert!(t.elide(head.len(), head.len() + run.len(), replay.clone()));
        assert!(!t.elide(head.len() + 1, head.len() + 2, replay));
        // The run holds nothing: the head's bytes and the two whole events outside it stay.
        let mut b = Vec::new();
        pack(&head[1], &mut b);
        assert_eq!((t.bytes.len(), t.whole.len(), t.slots.len()), (b.len(), 2, 3));
        assert_eq!(t.len(), all.len());
        assert_eq!(t.events().to_vec(), all);
        assert_eq!(replays.load(std::sync::atomic::Ordering::Relaxed), 1, "read in order: one replay");
        let wholes: Vec<usize> = t.events().whole().map(|(i, _)| i).collect();
        assert_eq!(wholes, [0, all.len() - 1], "the run's whole event is not held");
        // Cut inside the run: the events kept still come from it; new ones pack after.
        t.truncate(head.len() + 10);
        assert_eq!(t.len(), head.len() + 10);
        t.push(assign(500, Some(1), 1));
        t.push(check.clone());
        assert_eq!(t.get(head.len() + 9).as_deref(), Some(&run[9]));
        assert_eq!(t.get(head.len() + 10).as_deref(), Some(&assign(500, Some(1), 1)));
        assert_eq!(t.get(head.len() + 11).as_deref(), Some(&check));
        assert_eq!(t.get(1).as_deref(), Some(&head[1]));
        // Cut before it: the run is gone.
        t.truncate(1);
        assert!(t.elided.is_empty());
        assert_eq!(t.events().to_vec(), head[..1]);
    }

    #[test]
    fn a_per_vreg_event_packs_into_a_third_of_an_event() {
        // Values as a function of a few thousand vregs gives them.
        let mut t = Trace::new();
        for k in 0..3000u32 {
            let mut a = assign(k, Some(k as u16 % 200), k % 7);
            if let EventKind::Alloc(AllocEvent::Assign(x)) = &mut a.kind {
                (x.secondary, x.index, x.attempt) = (k % 3, k, 0);
            }
            t.push(a);
            let mut c = constraints(f64::from(k));
            if let EventKind::Alloc(AllocEvent::Constraints { vreg, interference, .. }) = &mut c.kind {
                (*vreg, *interference) = (VRegId(k), 12);
            }
            c.func = Some(4000);
            t.push(c);
        }
        assert!(t.whole.is_empty());
        let per_event = (t.slots.len() * 4 + t.bytes.len()) / t.len();
        assert!(per_event * 3 <= std::mem::size_of::<Event>(), "{per_event} bytes an event");
    }

    #[test]
    fn the_trace_holds_little_more_than_its_events() {
        // A long run's trace grows by an eighth, not by doubling: what it holds stays
        // within about a fifth of what its events take (each vector's own slack).
        // Checked just past a power of two of packed bytes, where a doubled vector is
        // half empty.
        let mut t = Trace::new();
        let mut k = 0u32;
        while t.bytes.len() <= 1 << 21 {
            t.push(assign(k, Some(k as u16 % 200), k % 7));
            if k.is_multiple_of(16) {
                t.push(constraints(f64::from(k)));
            }
            k += 1;
        }
        let used = t.slots.len() * 4 + t.whole.len() * std::mem::size_of::<Event>() + t.bytes.len();
        assert!(t.heap_bytes() * 5 <= used * 6, "{} bytes held for {used}", t.heap_bytes());
    }
}
