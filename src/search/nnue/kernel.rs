//! The arithmetic of the net: a scalar path, and SIMD paths (AVX2, chosen at run time
//! where the processor has it; SSE2 otherwise, which every x86-64 processor has). All
//! give the same bits: the accumulator's sums wrap in i16 on each, and the output's
//! i32 sum wraps on each (its terms are exact, and a wrapping sum does not depend on
//! its order).

/// The clipped ReLU's ceiling, which is also the feature weights' scale in a net file.
pub const QA: i32 = 255;

/// Which code computes the net.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// Portable Rust, one lane at a time.
    Scalar,
    /// 8 lanes at a time with SSE2 (x86-64 only).
    Sse2,
    /// 16 lanes at a time with AVX2 (x86-64 only).
    Avx2,
}

impl Kernel {
    /// Every kernel, available here or not.
    pub const ALL: [Kernel; 3] = [Kernel::Scalar, Kernel::Sse2, Kernel::Avx2];

    /// The fastest kernel this processor runs.
    pub fn detect() -> Kernel {
        [Kernel::Avx2, Kernel::Sse2].into_iter().find(|k| k.available()).unwrap_or(Kernel::Scalar)
    }

    /// Does this processor run it?
    pub fn available(self) -> bool {
        match self {
            Kernel::Scalar => true,
            #[cfg(target_arch = "x86_64")]
            Kernel::Sse2 => true,
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => is_x86_feature_detected!("avx2"),
            #[cfg(not(target_arch = "x86_64"))]
            Kernel::Sse2 | Kernel::Avx2 => false,
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
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above (every x86-64 processor has SSE2).
            Kernel::Sse2 => unsafe { sse2::apply(dst, src, len, adds, subs) },
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
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above.
            Kernel::Sse2 if fits_i16 => unsafe { sse2::output(us, them, weights) },
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
    let c = (x as i32).clamp(0, QA);
    c * c
}

fn scalar_output(us: &[i16], them: &[i16], weights: &[i16]) -> i32 {
    let (w_us, w_them) = weights.split_at(us.len());
    let half = |acc: &[i16], w: &[i16]| {
        acc.iter().zip(w).fold(0i32, |sum, (&x, &w)| sum.wrapping_add(screlu(x).wrapping_mul(w as i32)))
    };
    half(us, w_us).wrapping_add(half(them, w_them))
}

/// A SIMD kernel over one vector width: `$lanes` i16 lanes per vector, the width's
/// intrinsics, and `$fold`, which adds the vector's i32 lanes down to 128 bits.
#[cfg(target_arch = "x86_64")]
macro_rules! simd_kernel {
    ($module:ident, $feature:literal, $lanes:literal, $load:ident, $store:ident, $add16:ident, $sub16:ident,
     $max16:ident, $min16:ident, $set1:ident, $zero:ident, $mullo:ident, $madd:ident, $add32:ident, $fold:path) => {
        mod $module {
            use std::arch::x86_64::*;

            /// # Safety
            #[doc = concat!("The processor must have ", $feature, "; every row `len` long, a multiple of ")]
            #[doc = concat!(stringify!($lanes), "; `dst` valid for `len` writes and `src` for `len` reads (it")]
            /// may be `dst`).
            #[target_feature(enable = $feature)]
            pub(super) unsafe fn apply(dst: *mut i16, src: *const i16, len: usize, adds: &[&[i16]], subs: &[&[i16]]) {
                for i in (0..len).step_by($lanes) {
                    // SAFETY: `i + lanes <= len` for every row (unaligned loads and
                    // stores); the chunk of `src` is read before the same chunk of
                    // `dst` is written.
                    unsafe {
                        let mut v = $load(src.add(i).cast());
                        for a in adds {
                            v = $add16(v, $load(a.as_ptr().add(i).cast()));
                        }
                        for s in subs {
                            v = $sub16(v, $load(s.as_ptr().add(i).cast()));
                        }
                        $store(dst.add(i).cast(), v);
                    }
                }
            }

            /// # Safety
            #[doc = concat!("The processor must have ", $feature, "; `weights` twice as long as `us` and")]
            #[doc = concat!("`them`, a multiple of ", stringify!($lanes), "; every weight within ±128.")]
            #[target_feature(enable = $feature)]
            pub(super) unsafe fn output(us: &[i16], them: &[i16], weights: &[i16]) -> i32 {
                let h = us.len();
                let zero = $zero();
                let ceiling = $set1(super::QA as i16);
                let mut sum = $zero();
                for (acc, w) in [(us, &weights[..h]), (them, &weights[h..])] {
                    for i in (0..h).step_by($lanes) {
                        // SAFETY: `i + lanes <= h` for both slices.
                        unsafe {
                            let x = $load(acc.as_ptr().add(i).cast());
                            let c = $min16($max16(x, zero), ceiling);
                            // `c * w` fits an i16 (|w| <= 128); times `c` again into
                            // i32 pairs.
                            let cw = $mullo(c, $load(w.as_ptr().add(i).cast()));
                            sum = $add32(sum, $madd(cw, c));
                        }
                    }
                }
                super::sum_i32x4($fold(sum))
            }
        }
    };
}

#[cfg(target_arch = "x86_64")]
simd_kernel!(
    avx2,
    "avx2",
    16,
    _mm256_loadu_si256,
    _mm256_storeu_si256,
    _mm256_add_epi16,
    _mm256_sub_epi16,
    _mm256_max_epi16,
    _mm256_min_epi16,
    _mm256_set1_epi16,
    _mm256_setzero_si256,
    _mm256_mullo_epi16,
    _mm256_madd_epi16,
    _mm256_add_epi32,
    super::fold_avx2
);

#[cfg(target_arch = "x86_64")]
simd_kernel!(
    sse2,
    "sse2",
    8,
    _mm_loadu_si128,
    _mm_storeu_si128,
    _mm_add_epi16,
    _mm_sub_epi16,
    _mm_max_epi16,
    _mm_min_epi16,
    _mm_set1_epi16,
    _mm_setzero_si128,
    _mm_mullo_epi16,
    _mm_madd_epi16,
    _mm_add_epi32,
    std::convert::identity
);

/// The two 128-bit halves of an AVX2 vector of i32, added lane by lane (wrapping).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn fold_avx2(v: std::arch::x86_64::__m256i) -> std::arch::x86_64::__m128i {
    use std::arch::x86_64::*;
    _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v))
}

/// The wrapping sum of four i32 lanes.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
#[inline]
fn sum_i32x4(v: std::arch::x86_64::__m128i) -> i32 {
    use std::arch::x86_64::*;
    let pairs = _mm_add_epi32(v, _mm_shuffle_epi32::<0b01_00_11_10>(v));
    let one = _mm_add_epi32(pairs, _mm_shuffle_epi32::<0b10_11_00_01>(pairs));
    _mm_cvtsi128_si32(one)
}
