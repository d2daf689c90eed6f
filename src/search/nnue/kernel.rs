//! The arithmetic of the net, written twice: a scalar path, and an AVX2 path chosen at
//! run time where the processor has it. Both give the same bits: the accumulator's
//! sums wrap in i16 on both, and the output's i32 sum wraps on both (its terms are
//! exact, and a wrapping sum does not depend on its order).

/// Which code computes the net.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// Portable Rust, one lane at a time.
    Scalar,
    /// 16 lanes at a time with AVX2 (x86-64 only).
    Avx2,
}

impl Kernel {
    /// Every kernel, available here or not.
    pub const ALL: [Kernel; 2] = [Kernel::Scalar, Kernel::Avx2];

    /// The fastest kernel this processor runs.
    pub fn detect() -> Kernel {
        if Kernel::Avx2.available() { Kernel::Avx2 } else { Kernel::Scalar }
    }

    /// Does this processor run it?
    pub fn available(self) -> bool {
        match self {
            Kernel::Scalar => true,
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => is_x86_feature_detected!("avx2"),
            #[cfg(not(target_arch = "x86_64"))]
            Kernel::Avx2 => false,
        }
    }

    /// `dst = src + sum(adds) - sum(subs)`, lane by lane, wrapping in i16. Every row
    /// is as long as `dst`, a multiple of 16.
    #[inline]
    pub fn apply(self, dst: &mut [i16], src: &[i16], adds: &[&[i16]], subs: &[&[i16]]) {
        assert_eq!(src.len(), dst.len());
        // SAFETY: both are valid for `dst.len()` lanes, and distinct.
        unsafe { self.apply_raw(dst.as_mut_ptr(), src.as_ptr(), dst.len(), adds, subs) }
    }

    /// `lanes += sum(adds) - sum(subs)`.
    #[inline]
    pub fn apply_in_place(self, lanes: &mut [i16], adds: &[&[i16]], subs: &[&[i16]]) {
        let p = lanes.as_mut_ptr();
        // SAFETY: `lanes` is both source and target: each chunk is read before it is
        // written.
        unsafe { self.apply_raw(p, p, lanes.len(), adds, subs) }
    }

    /// # Safety
    /// `dst` valid for `len` writes and `src` for `len` reads (it may be `dst`).
    #[inline]
    unsafe fn apply_raw(self, dst: *mut i16, src: *const i16, len: usize, adds: &[&[i16]], subs: &[&[i16]]) {
        assert!(len % 16 == 0 && adds.iter().chain(subs).all(|r| r.len() == len));
        match self {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: a net keeps Avx2 only where `available` found it; the lengths
            // are checked above, `src`'s by the caller.
            Kernel::Avx2 => unsafe { avx2::apply(dst, src, len, adds, subs) },
            // SAFETY: as above.
            _ => unsafe { scalar_apply(dst, src, len, adds, subs) },
        }
    }

    /// The output's sum: `sum screlu(us[i]) w[i] + sum screlu(them[i]) w[H + i]`,
    /// wrapping in i32. `fits_i16`: every weight is within ±128, which the SIMD path
    /// needs (otherwise the scalar path answers).
    #[inline]
    pub fn output(self, us: &[i16], them: &[i16], weights: &[i16], fits_i16: bool) -> i32 {
        debug_assert!(us.len() == them.len() && weights.len() == 2 * us.len());
        match self {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above.
            Kernel::Avx2 if fits_i16 => unsafe { avx2::output(us, them, weights) },
            _ => scalar_output(us, them, weights),
        }
    }
}

/// # Safety
/// `dst` valid for `len` writes, `src` for `len` reads (it may be `dst`).
unsafe fn scalar_apply(dst: *mut i16, src: *const i16, len: usize, adds: &[&[i16]], subs: &[&[i16]]) {
    for i in 0..len {
        // SAFETY: `i < len`; lane `i` of `src` is read before lane `i` of `dst` is
        // written.
        let mut v = unsafe { src.add(i).read() };
        for a in adds {
            v = v.wrapping_add(a[i]);
        }
        for s in subs {
            v = v.wrapping_sub(s[i]);
        }
        // SAFETY: `i < len`.
        unsafe { dst.add(i).write(v) };
    }
}

/// `clamp(x, 0, qa)^2`.
#[inline(always)]
fn screlu(x: i16) -> i32 {
    let c = (x as i32).clamp(0, super::net::QA);
    c * c
}

fn scalar_output(us: &[i16], them: &[i16], weights: &[i16]) -> i32 {
    let (w_us, w_them) = weights.split_at(us.len());
    let half = |acc: &[i16], w: &[i16]| {
        acc.iter().zip(w).fold(0i32, |sum, (&x, &w)| sum.wrapping_add(screlu(x).wrapping_mul(w as i32)))
    };
    half(us, w_us).wrapping_add(half(them, w_them))
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    const LANES: usize = 16;

    /// # Safety
    /// The processor must have AVX2; every row `len` long, a multiple of 16; `dst`
    /// valid for `len` writes and `src` for `len` reads (it may be `dst`).
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn apply(dst: *mut i16, src: *const i16, len: usize, adds: &[&[i16]], subs: &[&[i16]]) {
        for i in (0..len).step_by(LANES) {
            // SAFETY: `i + 16 <= len` for every row (unaligned loads and stores); the
            // chunk of `src` is read before the same chunk of `dst` is written.
            unsafe {
                let mut v = _mm256_loadu_si256(src.add(i).cast());
                for a in adds {
                    v = _mm256_add_epi16(v, _mm256_loadu_si256(a.as_ptr().add(i).cast()));
                }
                for s in subs {
                    v = _mm256_sub_epi16(v, _mm256_loadu_si256(s.as_ptr().add(i).cast()));
                }
                _mm256_storeu_si256(dst.add(i).cast(), v);
            }
        }
    }

    /// # Safety
    /// The processor must have AVX2; `weights` twice as long as `us` and `them`, a
    /// multiple of 16; every weight within ±128.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn output(us: &[i16], them: &[i16], weights: &[i16]) -> i32 {
        let h = us.len();
        let zero = _mm256_setzero_si256();
        let ceiling = _mm256_set1_epi16(super::super::net::QA as i16);
        let mut sum = _mm256_setzero_si256();
        for (acc, w) in [(us, &weights[..h]), (them, &weights[h..])] {
            for i in (0..h).step_by(LANES) {
                // SAFETY: `i + 16 <= h` for both slices.
                unsafe {
                    let x = _mm256_loadu_si256(acc.as_ptr().add(i).cast());
                    let c = _mm256_min_epi16(_mm256_max_epi16(x, zero), ceiling);
                    let cw = _mm256_mullo_epi16(c, _mm256_loadu_si256(w.as_ptr().add(i).cast()));
                    sum = _mm256_add_epi32(sum, _mm256_madd_epi16(cw, c));
                }
            }
        }
        let pair = _mm_add_epi32(_mm256_castsi256_si128(sum), _mm256_extracti128_si256::<1>(sum));
        let quad = _mm_add_epi32(pair, _mm_shuffle_epi32::<0b01_00_11_10>(pair));
        let one = _mm_add_epi32(quad, _mm_shuffle_epi32::<0b10_11_00_01>(quad));
        _mm_cvtsi128_si32(one)
    }
}
