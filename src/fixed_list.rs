//! A list of fixed capacity that never allocates, for move generation and the search's
//! move ordering.

use std::fmt;
use std::mem::MaybeUninit;

/// A fixed-capacity list; move generation never allocates. Each variant fixes the item
/// and the capacity (see [`crate::rules::types::MoveList`]). Its storage is not initialised when the list
/// is made: the search makes several lists at every node, and zeroing them cost more
/// than filling them.
#[derive(Clone)]
pub struct FixedList<T: Copy, const N: usize> {
    /// Invariant: `len <= N`, and `items[..len]` are initialised. Every method keeps
    /// it; the items beyond are never read.
    len: usize,
    items: [MaybeUninit<T>; N],
}

impl<T: Copy + Default + PartialEq, const N: usize> FixedList<T, N> {
    /// The capacity.
    pub const CAPACITY: usize = N;

    /// An empty list.
    #[inline(always)]
    pub fn new() -> Self {
        FixedList { len: 0, items: [const { MaybeUninit::uninit() }; N] }
    }

    /// Appends `item` (the capacity is never reached by construction).
    #[inline(always)]
    pub fn push(&mut self, item: T) {
        debug_assert!(self.len < N);
        self.extend([item]);
    }

    /// How many items the list holds.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Does the list hold nothing?
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The items, in order.
    #[inline(always)]
    pub fn as_slice(&self) -> &[T] {
        // SAFETY: `items[..len]` are initialised (the invariant), and `MaybeUninit<T>`
        // has the layout of `T`.
        unsafe { std::slice::from_raw_parts(self.items.as_ptr().cast(), self.len) }
    }

    /// The items, in order, to reorder or change.
    #[inline(always)]
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        // SAFETY: as in `as_slice`; the borrow is unique.
        unsafe { std::slice::from_raw_parts_mut(self.items.as_mut_ptr().cast(), self.len) }
    }

    /// Empties the list.
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Removes the item at `index` (if there is one), the items after it shifted down.
    #[inline]
    pub fn remove(&mut self, index: usize) {
        if index < self.len {
            self.items.copy_within(index + 1..self.len, index);
            self.len -= 1;
        }
    }

    /// Keeps, from `start` on, only the items `keep` accepts, in order.
    pub fn retain_from(&mut self, start: usize, mut keep: impl FnMut(T) -> bool) {
        let items = self.as_mut_slice();
        let start = start.min(items.len());
        let mut kept = start;
        for i in start..items.len() {
            let item = items[i];
            if keep(item) {
                items[kept] = item;
                kept += 1;
            }
        }
        self.len = kept;
    }

    /// Keeps the first `len` items (all of them if there are fewer).
    #[inline(always)]
    pub fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }

    /// Iterates the items in order.
    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.as_slice().iter()
    }

    /// Does the list hold `item`?
    pub fn contains(&self, item: T) -> bool {
        self.as_slice().contains(&item)
    }

    /// Swaps the items at `a` and `b`.
    pub fn swap(&mut self, a: usize, b: usize) {
        self.as_mut_slice().swap(a, b)
    }
}

impl<T: Copy + Default + PartialEq, const N: usize> Default for FixedList<T, N> {
    fn default() -> Self {
        Self::new()
    }
}

/// Pushes each item (the list must have room for them all).
impl<T: Copy + Default + PartialEq, const N: usize> Extend<T> for FixedList<T, N> {
    #[inline]
    fn extend<I: IntoIterator<Item = T>>(&mut self, items: I) {
        // The length is kept in a local until the end: `push` would store it each time.
        let mut len = self.len;
        for item in items {
            if let Some(slot) = self.items.get_mut(len) {
                slot.write(item);
                len += 1;
            }
        }
        self.len = len;
    }
}

impl<T: Copy + Default + PartialEq, const N: usize> AsRef<[T]> for FixedList<T, N> {
    fn as_ref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<'a, T: Copy + Default + PartialEq, const N: usize> IntoIterator for &'a FixedList<T, N> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<T: Copy + Default + PartialEq + fmt::Debug, const N: usize> fmt::Debug for FixedList<T, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}
