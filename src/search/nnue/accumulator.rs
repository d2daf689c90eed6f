//! The accumulators of one position, one per perspective: the feature bias plus the
//! rows of every active feature, `hidden` i16 lanes each.

use super::features::{self, Change};
use super::net::Network;
use crate::rules::board::Board;
use crate::rules::types::Color;

/// Red's accumulator and Black's, for one net.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Accumulator {
    /// Red's `hidden` lanes, then Black's.
    lanes: Box<[i16]>,
}

impl Accumulator {
    /// Both perspectives of `board`, from scratch.
    pub fn refresh(net: &Network, board: &Board) -> Accumulator {
        let mut acc = Accumulator { lanes: vec![0; 2 * net.hidden()].into_boxed_slice() };
        acc.refresh_from(net, board);
        acc
    }

    /// Recomputes both perspectives of `board` in place.
    pub fn refresh_from(&mut self, net: &Network, board: &Board) {
        for c in Color::ALL {
            // Rows in batches, so that each lane is loaded and stored once per batch.
            const BATCH: usize = 8;
            let mut rows: [&[i16]; BATCH] = [&[]; BATCH];
            let mut n = 0;
            let lanes = self.perspective_mut(net, c);
            lanes.copy_from_slice(&net.feature_bias);
            for f in features::active(board, c) {
                rows[n] = net.row(f);
                n += 1;
                if n == BATCH {
                    net.kernel.apply_in_place(lanes, &rows, &[]);
                    n = 0;
                }
            }
            net.kernel.apply_in_place(lanes, &rows[..n], &[]);
        }
    }

    /// `self = previous + change`, for both perspectives.
    #[inline]
    pub fn update_from(&mut self, net: &Network, previous: &Accumulator, change: &Change) {
        for c in Color::ALL {
            let (adds, subs) = change.features(c);
            let mut add_rows: [&[i16]; 1] = [&[]];
            let mut sub_rows: [&[i16]; 2] = [&[]; 2];
            let na = adds.zip(add_rows.iter_mut()).map(|(f, r)| *r = net.row(f)).count();
            let ns = subs.zip(sub_rows.iter_mut()).map(|(f, r)| *r = net.row(f)).count();
            let h = net.hidden();
            let src = &previous.lanes[c.index() * h..(c.index() + 1) * h];
            net.kernel.apply(self.perspective_mut(net, c), src, &add_rows[..na], &sub_rows[..ns]);
        }
    }

    /// `perspective`'s lanes.
    #[inline(always)]
    pub fn perspective(&self, perspective: Color) -> &[i16] {
        let h = self.lanes.len() / 2;
        &self.lanes[perspective.index() * h..(perspective.index() + 1) * h]
    }

    fn perspective_mut(&mut self, net: &Network, perspective: Color) -> &mut [i16] {
        let h = net.hidden();
        &mut self.lanes[perspective.index() * h..(perspective.index() + 1) * h]
    }
}
