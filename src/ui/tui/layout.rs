//! Where each pane goes for a terminal size. Three arrangements: *large* (≥ 180×50:
//! the IR on half the width, two columns of panes, Why beside the log), *medium* (≥ 100×30: IR beside a column of panes, the less used
//! ones sharing a tabbed slot) and *small* (anything less, e.g. a plain 80×24 SSH
//! session: every pane in one tabbed slot). A zoomed pane takes the whole middle.
//!
//! Owns geometry only.

use ratatui::layout::{Constraint, Direction, Layout, Rect};

/// The panes, in focus order (keys 1–9, then 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum PaneId {
    Ir,
    Live,
    Constraints,
    Hist,
    State,
    Attempts,
    Abi,
    Log,
    Why,
    Source,
}

impl PaneId {
    pub const COUNT: usize = 10;
    pub const ALL: [PaneId; PaneId::COUNT] = [
        PaneId::Ir,
        PaneId::Live,
        PaneId::Constraints,
        PaneId::Hist,
        PaneId::State,
        PaneId::Attempts,
        PaneId::Abi,
        PaneId::Log,
        PaneId::Why,
        PaneId::Source,
    ];

    pub fn index(self) -> usize {
        self as usize
    }

    /// The key that focuses it: 1–9, then 0 for the tenth.
    pub fn key(self) -> usize {
        (self.index() + 1) % 10
    }

    /// The full title.
    pub fn title(self) -> &'static str {
        match self {
            PaneId::Ir => "IR",
            PaneId::Live => "Live",
            PaneId::Constraints => "Constraints",
            PaneId::Hist => "Histogram",
            PaneId::State => "State",
            PaneId::Attempts => "Attempts",
            PaneId::Abi => "ABI",
            PaneId::Log => "Log",
            PaneId::Why => "Why",
            PaneId::Source => "Source",
        }
    }

    /// A short name for tab strips.
    pub fn short(self) -> &'static str {
        match self {
            PaneId::Constraints => "Cons",
            PaneId::Hist => "Hist",
            PaneId::Attempts => "Att",
            PaneId::Source => "Src",
            p => p.title(),
        }
    }
}

/// A rectangle holding one pane, or several as tabs.
#[derive(Clone, Debug, PartialEq)]
pub struct Slot {
    pub area: Rect,
    pub panes: Vec<PaneId>,
}

/// The whole screen.
#[derive(Clone, Debug, PartialEq)]
pub struct Screen {
    pub status: Rect,
    pub slots: Vec<Slot>,
    /// The command line (one row).
    pub command: Rect,
    pub size: Size,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Size {
    Small,
    Medium,
    Large,
}

pub fn size_of(area: Rect) -> Size {
    if area.width >= 180 && area.height >= 50 {
        Size::Large
    } else if area.width >= 100 && area.height >= 30 {
        Size::Medium
    } else {
        Size::Small
    }
}

fn split(dir: Direction, area: Rect, c: &[Constraint]) -> Vec<Rect> {
    Layout::default().direction(dir).constraints(c.to_vec()).split(area).to_vec()
}

fn slot(area: Rect, panes: &[PaneId]) -> Slot {
    Slot { area, panes: panes.to_vec() }
}

/// Lays the screen out; `zoom` gives one pane the whole middle.
pub fn layout(area: Rect, zoom: Option<PaneId>) -> Screen {
    use Constraint::{Length, Min, Percentage};
    use PaneId::*;
    let size = size_of(area);
    let rows = split(Direction::Vertical, area, &[Length(1), Min(1), Length(1)]);
    let (status, middle, command) = (rows[0], rows[1], rows[2]);
    let slots = if let Some(p) = zoom {
        vec![slot(middle, &[p])]
    } else {
        match size {
            Size::Small => {
                // The log keeps a few rows under the tabs when there is room for both.
                if middle.height >= 16 {
                    let r = split(Direction::Vertical, middle, &[Min(8), Length(5)]);
                    vec![
                        slot(r[0], &[Ir, Live, Constraints, Hist, State, Attempts, Abi, Why, Source]),
                        slot(r[1], &[Log]),
                    ]
                } else {
                    vec![slot(middle, &PaneId::ALL)]
                }
            }
            Size::Medium => {
                let r = split(Direction::Vertical, middle, &[Min(10), Length(8)]);
                let cols = split(Direction::Horizontal, r[0], &[Percentage(55), Percentage(45)]);
                let right = split(Direction::Vertical, cols[1], &[Percentage(34), Percentage(33), Percentage(33)]);
                vec![
                    slot(cols[0], &[Ir]),
                    slot(right[0], &[Live]),
                    slot(right[1], &[Hist]),
                    slot(right[2], &[Constraints, State, Attempts, Abi, Why, Source]),
                    slot(r[1], &[Log]),
                ]
            }
            Size::Large => {
                // The IR gets half the width (its assignment column is what people read
                // on a wide terminal); Why gets a wide strip of its own beside the log
                // (its tables are ~100 columns); State shares a slot with ABI.
                let bottom = (middle.height * 3 / 10).max(10);
                let r = split(Direction::Vertical, middle, &[Min(20), Length(bottom)]);
                let cols = split(Direction::Horizontal, r[0], &[Percentage(48), Percentage(24), Percentage(28)]);
                let mid = split(Direction::Vertical, cols[1], &[Percentage(36), Percentage(34), Percentage(30)]);
                let right = split(Direction::Vertical, cols[2], &[Percentage(35), Percentage(65)]);
                let low = split(Direction::Horizontal, r[1], &[Percentage(40), Percentage(60)]);
                vec![
                    slot(cols[0], &[Ir]),
                    slot(mid[0], &[Live]),
                    slot(mid[1], &[Hist]),
                    slot(mid[2], &[Constraints]),
                    slot(right[0], &[Attempts, Source]),
                    slot(right[1], &[State, Abi]),
                    slot(low[0], &[Log]),
                    slot(low[1], &[Why]),
                ]
            }
        }
    };
    Screen { status, slots, command, size }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pane_has_a_place_at_every_size() {
        for (w, h) in [(80, 24), (120, 40), (200, 60), (40, 10), (100, 30), (180, 50)] {
            let s = layout(Rect::new(0, 0, w, h), None);
            for p in PaneId::ALL {
                assert_eq!(s.slots.iter().filter(|x| x.panes.contains(&p)).count(), 1, "{p:?} at {w}x{h}");
            }
            for x in &s.slots {
                assert!(x.area.right() <= w && x.area.bottom() <= h);
            }
        }
        assert_eq!(size_of(Rect::new(0, 0, 80, 24)), Size::Small);
        assert_eq!(size_of(Rect::new(0, 0, 120, 40)), Size::Medium);
        assert_eq!(size_of(Rect::new(0, 0, 200, 60)), Size::Large);
        // A wide terminal: the IR takes about half the width, Why a slot of its own at
        // least 100 columns wide (issue 27: it shared a tab with ABI and wrapped at 58).
        let wide = layout(Rect::new(0, 0, 200, 60), None);
        let of = |p: PaneId| wide.slots.iter().find(|x| x.panes.contains(&p)).expect("placed").clone();
        assert!(of(PaneId::Ir).area.width >= 95, "{:?}", of(PaneId::Ir));
        assert_eq!(of(PaneId::Why).panes, vec![PaneId::Why]);
        assert!(of(PaneId::Why).area.width >= 100 && of(PaneId::Why).area.height >= 15, "{:?}", of(PaneId::Why));
        assert!(of(PaneId::State).area.width < of(PaneId::Ir).area.width);
        let z = layout(Rect::new(0, 0, 80, 24), Some(PaneId::Hist));
        assert_eq!(z.slots, vec![Slot { area: Rect::new(0, 1, 80, 22), panes: vec![PaneId::Hist] }]);
    }
}
