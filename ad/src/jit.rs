//! Native code for the straight-line programs: each program (value, gradient, Hessian) is
//! compiled with Cranelift into one function that loops over a range of data points, keeps
//! the program's registers in SSA values (machine registers or spill slots, chosen by
//! Cranelift's register allocator) and writes its outputs where the interpreter writes them.
//!
//! The loop runs [`LANES`] (8) points per iteration while that many are left, then one at
//! a time; a body that calls `exp`, `sin` or `cos` (and is at most `WIDE_MAX_INSTRUCTIONS`
//! long) runs two blocks of 8 points per iteration instead, the second block's lane-function
//! calls emitted before the first block's outputs, so that the instructions after the first
//! block's calls no longer stall the core until those results arrive (the same operations
//! per point, so the same bits); where it stores its outputs, that loop runs down to the
//! last 8 points, its second block clamped to them (no 8-point loop: one copy of the body
//! less to compile), where it sums or scatters them, the 8-point loop follows. Where such a
//! body makes at least `TWO_BLOCK_MIN_CALLS` (2) lane-function calls per block (x86-64), the
//! two blocks are emitted in lockstep up to each call (block 0's instructions since the
//! last call, then block 1's) and one call of the function's 16-point entry point takes
//! both blocks' points (eight pairs in `xmm0`–`xmm7`; the per-point operations of the
//! 8-point entry point, so the same bits): half the calls, and the lane function runs two
//! independent 8-lane chains. The body is
//! the program unrolled per point, and each `exp`, `sin` and `cos` (and
//! each `sin`/`cos` pair of one value) is one call of a lane function of [`crate::vmath`]
//! for the eight points (arguments in registers: on x86-64 the four pairs of points as four
//! `F64X2` values in `xmm0`–`xmm3`, System V, elsewhere eight scalars; results in a stack
//! slot of each call's own, which the call returns, read as `F64X2` pairs where they are
//! used; AVX-512 or AVX2 where the CPU has it). The slots are 64-byte aligned (session 28):
//! the AVX-512F copies store each output as one 64-byte vector, and where such a store
//! straddled two cache lines (the frame is only 16-aligned, so that depended on the
//! caller's stack depth) the 16-byte reloads stalled; rosenbrock:200000 `cons` took 760 µs
//! instead of 455 in `simdnlp-bench callbacks`, with the same code.
//! Between two such calls the instructions are emitted pair of points after pair of points,
//! so fewer values are live across a call: the arithmetic that IEEE 754 rounds per lane
//! (`+ - * /`, negation, `abs`, `abs2`, `inv`, `sqrt`, `deg2rad`, `rad2deg`, integer
//! powers, the fused superinstructions) as one `F64X2` instruction for both points of a
//! pair, a data column's two rows as one vector load, the lane functions' results read
//! back as vectors, a body's outputs stored as vectors where it has one per point (two
//! adjacent rows) and, where it has several, two consecutive outputs of both points as two
//! 16-byte rows (`punpcklqdq`/`punpckhqdq`), a lone one's second point with one `pextrq` to
//! memory; everything else (gathers of `x` and `θ`, calls of other functions, `max`/`min`,
//! outputs computed as scalars) per point, the two points' scalars packed into a vector or
//! a vector's lanes extracted where one meets the other. The remainder points run one at
//! a time, scalar, and call the one-point versions, which are bitwise the lane functions'
//! results per point.
//!
//! Where a function reads `x` or `θ` without a bounds check ([`JitInput::unchecked_gathers`])
//! at positions `col[k] + off` of integer data columns (and does not sum its outputs: a
//! summed objective's pace is its chain of additions), its vector loops are emitted twice:
//! the general copy above, and a counting copy that one branch at the function's entry
//! picks when every such column counts up by one over the call's data
//! ([`JitArgs::counting`], computed with the bounds by [`crate::Pattern::index_bounds`]:
//! the common `m.constraint(1..=n, |k| ...)` over a range). There, lane `l` of a block
//! starting at point `k₀` reads position `col[k₀] + l + off`, so a lane pair's two entries
//! are one 16-byte load at `8·(col[k₀] + off + 2q)` from one `col[k₀]` load per block
//! (instead of two column loads, two scalar loads and a pack): the same positions, so
//! the same values and bits. The one-point loop is shared; the compile time of such
//! functions grows by the second copy of the vector loop's body (session 28: 14 % more per
//! pattern on LV, 37 % on COPS, 54 % on two OPF cases, whose callbacks stayed within
//! noise: `bench-suites/README.md`).
//!
//! # Agreement with the interpreter
//!
//! The JIT computes exactly what the interpreter computes, instruction by instruction:
//!
//! - `+ - * /`, negation, `abs`, `abs2`, `inv`, `sqrt`, `deg2rad`, `rad2deg`, `max`, `min`
//!   and the internal steps `ge`/`gt` are native instructions; IEEE 754 rounds each one
//!   correctly and Cranelift never contracts `a*b + c` into a fused multiply-add, so they are
//!   bit-identical to the interpreter. The `F64X2` forms round each lane as the scalar
//!   instruction does, whatever the other lane holds (NaN, ±∞), so they are too. The
//!   interpreter's fused superinstructions round every intermediate too, so they are
//!   bit-identical as well.
//! - integer powers `a^k` are multiplied out inline with the products, in the order, of
//!   the routine `f64::powi` calls at run time (`__powidf2`), so bit-identical to it.
//! - `exp`, `sin` and `cos` are [`crate::vmath`]'s branch-free lane functions, which the
//!   interpreter runs over its batches too: bitwise the same results whatever the number of
//!   points per call or the vector width (their fused multiply-adds are written out as
//!   `f64::mul_add`, one rounding on every machine), and within 1 ulp of the platform libm (which
//!   the evaluators called before; so results differ from those by at most 1 ulp per
//!   `exp`, `sin` or `cos`). A `sin` and a `cos` of the same value (every derivative of a
//!   `sin` or `cos` has both) are one call that returns both (the price of one); the
//!   tests check that pair bitwise against the separate calls.
//! - every other function (`pow`, `atan2`, `tan`, `log`, the special functions, user
//!   functions, floor division of indices, ...) is a call to a C-ABI wrapper of the very
//!   Rust function the interpreter runs ([`crate::Un::eval`], [`crate::Bin::eval`], ...):
//!   one implementation set, bit-identical results.
//! - out-of-range positions of `x` or `θ` read NaN, as in the interpreter.
//!
//! So every output is bit-identical to the interpreter's (the tests check this for every
//! registered function, at NaN, ±∞ and outside each function's domain). The one exception is
//! a user function that panics: the interpreter propagates the panic, the JIT catches it in
//! the call wrapper and the result is NaN (unwinding through JIT-compiled frames is not
//! supported).
//!
//! Only `f64` programs are compiled; `f32` patterns use the interpreter.
//!
//! With the environment variable `SIMDNLP_JIT_DISASM` set, each compiled function's
//! machine code (Cranelift's listing) is printed to stderr, for inspection.

use crate::index::{floor_div, floor_rem};
use crate::ops::{Bin, BinOp, BinaryFn, BinaryInner, Un, UnOp, UnaryFn, UnaryInner};
use crate::program::{Ar, Fk, IOp, ISrc, Ins, Program, Src, U1};
use crate::vmath::{self, LANES, LaneFn};
use cranelift_codegen::ir;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    AbiParam, BlockArg, InstBuilder, MemFlags, SigRef, Signature, UserFuncName, Value, types,
};
use cranelift_codegen::isa::CallConv;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{Linkage, Module, default_libcall_names};
use std::collections::HashMap;
use std::mem::{ManuallyDrop, offset_of};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Everything one call of a compiled program reads and writes (the C layout the generated
/// code loads its pointers from).
///
/// Invariants the caller upholds (see [`JitProgram::call`]): the data columns have at least
/// `last` rows; `out` has `(last - first) * step` entries, `values` (when the program writes
/// values) and `weights` (when it is weighted) `last - first`; all are for point `first`.
/// A group's code ([`Output::Members`]) writes through `outs` instead: member `m` at
/// `outs[m] + k * step_m`, reading `wts[m] + k`, for the absolute points `k < last`.
#[repr(C)]
pub(crate) struct JitArgs {
    /// the variable vector
    pub x: *const f64,
    /// its length (positions at or past it read NaN)
    pub x_len: usize,
    /// the parameter vector
    pub theta: *const f64,
    /// its length
    pub theta_len: usize,
    /// the base pointers of the real data columns
    pub reals: *const *const f64,
    /// the base pointers of the integer data columns
    pub ints: *const *const i64,
    /// the outputs of point `first` (`step` per point)
    pub out: *mut f64,
    /// the values of point `first` (gradient programs that write the value), else null
    pub values: *mut f64,
    /// the weights of point `first` (Hessian programs), else null
    pub weights: *const f64,
    /// a NaN that out-of-range positions read
    pub nan: *const f64,
    /// [`Output::Scatter`]: the positions in `out` of the outputs of point `first`
    /// (`step` per point), else null
    pub globals: *const usize,
    /// [`Output::Scatter`]: the length of `out` (positions at or past it are not written)
    pub out_len: usize,
    /// [`Output::Members`]: per member, the base of its outputs (point 0), else null
    pub outs: *const *mut f64,
    /// [`Output::Members`]: per member, the base of its weights (point 0; null entries for
    /// members that are not weighted), else null
    pub wts: *const *const f64,
    /// bit `c` set: integer data column `c` counts up by one over the rows the call's
    /// points read (`col[k + 1] == col[k] + 1`, [`crate::IndexBounds::counting_columns`]);
    /// a function whose unchecked gathers read positions from such columns then loads both
    /// points of a lane pair as one 16-byte load. 0 (always sound) runs the general code.
    pub counting: u64,
}

/// Where a compiled program puts its per-point outputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Output {
    /// `out[(k - first) * step + s]` (point-major, like the interpreter)
    Store,
    /// `out[0] += output` point by point in order (one output per point: objective values)
    Sum,
    /// `out[globals[(k - first) * step + s]] += output s` point by point and slot by slot
    /// in order (gradient entries added into the gradient)
    Scatter,
    /// `out[pos_s(k)] += output s` point by point and slot by slot in order, where
    /// `pos_s(k)` is output `s`'s position read from the data (a column's entry at point
    /// `k`, or a constant, plus an offset: [`JitInput::slot_positions`]) WITHOUT a bounds
    /// check (the caller makes sure every such position lies inside `out`); no `globals`
    ScatterAtSlots,
    /// code of a group of programs over the same data points (see [`compile_group`]):
    /// member `m`'s outputs at `outs[m][k * step_m + s]` for absolute point `k`, each
    /// multiplied by `wts[m][k]` when the member is weighted; or, for a function with a
    /// [`SumInto`] map, every member's outputs summed into one block per point at
    /// `outs[0][k * entries + e]`
    Members,
}

/// The value an out-of-range position of `x` or `θ` reads.
static NAN: f64 = f64::NAN;

/// Pointer to [`NAN`] for [`JitArgs::nan`].
pub(crate) fn nan_ptr() -> *const f64 {
    &NAN
}

/// `fn(args, first, last)`: runs the program on data points `first..last`.
type JitFn = unsafe extern "C" fn(*const JitArgs, usize, usize);

/// One compiled program.
#[derive(Clone, Copy)]
pub(crate) struct JitProgram {
    func: JitFn,
    /// the program multiplies each output by the point's weight
    pub weighted: bool,
    /// the program writes the value of each point into `values`
    pub writes_values: bool,
    /// where the outputs go
    pub output: Output,
    /// data points per iteration of the program's vector loop: `BLOCKS * LANES` where it
    /// calls a lane function and is short enough ([`Lower::wide`]), else [`LANES`]
    /// (read by the tests)
    #[cfg_attr(not(test), allow(dead_code))]
    pub points_per_iteration: usize,
    /// copies of the program's body in the function, one per block of points: `BLOCKS` or
    /// one in the vector loop's body, one in the one-point loop's (the compile time grows
    /// with them; read by the tests)
    #[cfg_attr(not(test), allow(dead_code))]
    pub bodies: usize,
    /// calls of the 16-point entry points of the lane functions in the function, one for
    /// both blocks of the wide loop where both call the same function (read by the tests)
    #[cfg_attr(not(test), allow(dead_code))]
    pub two_block_calls: usize,
}

impl JitProgram {
    /// Runs the program on data points `first..last`.
    ///
    /// # Safety
    ///
    /// `args` satisfies the invariants documented on [`JitArgs`] for `first..last`, and the
    /// [`JitCode`] this program belongs to is alive. When it was compiled with
    /// [`JitInput::unchecked_gathers`], also: for every point `k` in `first..last` and
    /// every `x` (`θ`) load of the program whose position is a data column's entry
    /// `col[k] + off` or a constant `c + off`, that position is in `0..x_len` (`0..theta_len`),
    /// and every integer column `c` whose bit is set in [`JitArgs::counting`] counts up by
    /// one over the rows `first..last` (`col[k + 1] == col[k] + 1` for `first <= k`,
    /// `k + 1 < last`; 0 is always sound).
    /// When its output is [`Output::ScatterAtSlots`], also: for every point `k` in
    /// `first..last`, every position it adds into (its [`JitInput::slot_positions`] at `k`)
    /// is inside `out`.
    pub(crate) unsafe fn call(&self, args: &JitArgs, first: usize, last: usize) {
        // SAFETY: the caller upholds the invariants of `JitArgs` (and, for unchecked
        // gathers, that their positions are inside `x` and `θ`, and that the columns of
        // `counting` count up by one over these rows, so the counting copy's pair loads at
        // `col[k₀] + l + off` read exactly those positions); the generated code reads `x`
        // and `θ` only after a bounds check or at those positions and the data and output
        // arrays only at the rows and strides those invariants cover.
        unsafe { (self.func)(args, first, last) }
    }
}

/// The native code of one pattern's programs; frees its memory when dropped.
pub(crate) struct JitCode {
    module: ManuallyDrop<JITModule>,
    /// one per program passed to [`compile`], in order
    pub programs: Vec<JitProgram>,
    /// the user functions the code calls by address (kept alive with the code)
    _unary: Vec<UnaryFn>,
    _binary: Vec<BinaryFn>,
    /// wall time of compiling all programs
    pub compile_time: Duration,
}

// SAFETY: after `finalize_definitions` the module's code is immutable; the module is only
// touched again by `Drop` (exclusive access). The generated functions read shared inputs and
// write only through the pointers each call passes, so calling them from several threads at
// once is sound.
unsafe impl Send for JitCode {}
// SAFETY: see `Send`: shared references only call the immutable generated code.
unsafe impl Sync for JitCode {}

impl Drop for JitCode {
    fn drop(&mut self) {
        // SAFETY: `self` is dropped, so no `JitProgram` of it can be called any more (patterns
        // hold the code in an `Arc` and copy programs out only for the duration of a call).
        unsafe { ManuallyDrop::take(&mut self.module).free_memory() }
    }
}

impl std::fmt::Debug for JitCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "JitCode({} programs, compiled in {:?})",
            self.programs.len(),
            self.compile_time
        )
    }
}

/// Patterns JIT-compiled in this process and the wall time spent on them (process-wide
/// counters, for reports such as the benchmark harness's compile time per pattern).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct JitStats {
    /// Patterns compiled (each one's value, gradient and Hessian programs).
    pub patterns: u64,
    /// Groups of patterns over the same data compiled into one loop per callback
    /// ([`crate::PatternGroup`]); their time is in `total` too.
    pub groups: u64,
    /// Total compile time (patterns and groups).
    pub total: Duration,
}

static STATS_PATTERNS: AtomicU64 = AtomicU64::new(0);
static STATS_GROUPS: AtomicU64 = AtomicU64::new(0);
static STATS_NANOS: AtomicU64 = AtomicU64::new(0);

/// The process-wide [`JitStats`] so far (take the difference of two readings for one
/// model's build).
pub fn jit_stats() -> JitStats {
    JitStats {
        patterns: STATS_PATTERNS.load(Ordering::Relaxed),
        groups: STATS_GROUPS.load(Ordering::Relaxed),
        total: Duration::from_nanos(STATS_NANOS.load(Ordering::Relaxed)),
    }
}

/// Longest function the JIT compiles, in program instructions (a pattern's program, or
/// the sum of a group's members' programs of one kind). Cranelift's register allocation
/// takes time quadratic in the length of these straight-line programs (a chain of nested
/// `sin` measured on 2 cores: 1 300 instructions 0.1 s, 2 600 0.46 s, 10 400 7 s, 20 800
/// 32 s), while the interpreter evaluates the same program at once; beyond this length
/// the compile costs more than the native code can save, so such patterns (and groups)
/// use the interpreter.
pub(crate) const MAX_FUNCTION_INSTRUCTIONS: usize = 2048;

/// Why a pattern could not be JIT-compiled (the evaluator then falls back to the
/// interpreter).
#[derive(Debug, thiserror::Error)]
pub(crate) enum JitError {
    /// Cranelift could not build the code.
    #[error("JIT compilation failed: {0}")]
    Failed(String),
    /// A function would be longer than [`MAX_FUNCTION_INSTRUCTIONS`] (not a failure: the
    /// interpreter is the faster choice there).
    #[error(
        "a function of {instructions} instructions is longer than the JIT's limit of \
         {MAX_FUNCTION_INSTRUCTIONS}"
    )]
    TooLong {
        /// Instructions of the longest function.
        instructions: usize,
    },
}

fn err(e: impl std::fmt::Display) -> JitError {
    JitError::Failed(e.to_string())
}

/// One program to compile, whether its outputs are weighted and where they go.
pub(crate) struct JitInput<'a> {
    pub program: &'a Program<f64>,
    pub weighted: bool,
    pub output: Output,
    /// positions of `x` and `θ` taken from a data column (plus the instruction's offset)
    /// or a constant are read WITHOUT a bounds check: the caller of the compiled program
    /// must make sure that every such position of every point it runs lies inside `x` /
    /// `θ` (positions computed by the index program are checked as usual)
    pub unchecked_gathers: bool,
    /// [`Output::ScatterAtSlots`]: per output, where it is added: `(base, offset)`, the
    /// position `base + offset` with `base` a data column ([`ISrc::F`]) or a constant
    /// ([`ISrc::C`])
    pub slot_positions: Option<&'a [(ISrc, i64)]>,
}

/// One function to generate: its programs (one, or a group's members: each with whether
/// its outputs are weighted) and where the outputs go.
struct FuncSpec<'a> {
    members: Vec<(&'a Program<f64>, bool)>,
    output: Output,
    sum_into: Option<SumInto<'a>>,
    unchecked_gathers: bool,
    slot_positions: Option<&'a [(ISrc, i64)]>,
}

/// How a group function sums its members' outputs into one block per data point
/// ([`Output::Members`]): output `s` of member `m` adds into entry `entry_of[m][s]` of the
/// point's `entries` entries. An entry is its first contribution (in member order, then
/// output order) plus the later ones, left to right; every entry gets at least one.
#[derive(Clone, Copy)]
pub(crate) struct SumInto<'a> {
    pub entry_of: &'a [Vec<u32>],
    pub entries: usize,
}

/// One function of a group's code: the members' programs (each with whether its outputs
/// are weighted) and, optionally, how their outputs are summed into one block.
pub(crate) struct GroupFunction<'a> {
    pub members: Vec<(&'a Program<f64>, bool)>,
    pub sum_into: Option<SumInto<'a>>,
    /// see [`JitInput::unchecked_gathers`]
    pub unchecked_gathers: bool,
}

/// Compiles `inputs` into native code, one function each (the programs of one pattern).
pub(crate) fn compile(inputs: &[JitInput<'_>]) -> Result<JitCode, JitError> {
    let specs = inputs
        .iter()
        .map(|i| FuncSpec {
            members: vec![(i.program, i.weighted)],
            output: i.output,
            sum_into: None,
            unchecked_gathers: i.unchecked_gathers,
            slot_positions: i.slot_positions,
        })
        .collect();
    let code = compile_functions(specs)?;
    STATS_PATTERNS.fetch_add(1, Ordering::Relaxed);
    Ok(code)
}

/// Compiles each of `groups` (the programs of several patterns over the same data points,
/// each with whether its outputs are weighted) into ONE function: a loop over the data
/// points that runs every member's program on the point, with common subexpressions
/// computed once across the members (value numbering: identical data and variable loads,
/// identical pure operations and `exp`/`sin`/`cos` calls on the same operands), each
/// member writing its outputs where [`Output::Members`] says (or, with a [`SumInto`] map,
/// adding them into one block per point). Same operations on the same operands as each
/// member's own code, so bit-identical results (a summed block: bit-identical to the
/// members' outputs added in the order [`SumInto`] states).
pub(crate) fn compile_group(functions: &[GroupFunction<'_>]) -> Result<JitCode, JitError> {
    for f in functions {
        if let Some(sum) = f.sum_into {
            let fits = sum.entry_of.len() == f.members.len()
                && sum.entry_of.iter().zip(&f.members).all(|(map, (p, _))| {
                    map.len() == p.out_regs.len() && map.iter().all(|&e| (e as usize) < sum.entries)
                });
            if !fits {
                return Err(err("a group's summed outputs do not fit its members"));
            }
            let mut hit = vec![false; sum.entries];
            sum.entry_of
                .iter()
                .flatten()
                .for_each(|&e| hit[e as usize] = true);
            if hit.contains(&false) {
                return Err(err("a group's summed outputs do not fit its members"));
            }
        }
    }
    let specs = functions
        .iter()
        .map(|f| FuncSpec {
            members: f.members.clone(),
            output: Output::Members,
            sum_into: f.sum_into,
            unchecked_gathers: f.unchecked_gathers,
            slot_positions: None,
        })
        .collect();
    let code = compile_functions(specs)?;
    STATS_GROUPS.fetch_add(1, Ordering::Relaxed);
    Ok(code)
}

fn compile_functions(specs: Vec<FuncSpec<'_>>) -> Result<JitCode, JitError> {
    let longest = specs
        .iter()
        .map(|spec| spec.members.iter().map(|(p, _)| p.ins.len()).sum::<usize>())
        .max()
        .unwrap_or(0);
    if longest > MAX_FUNCTION_INSTRUCTIONS {
        return Err(JitError::TooLong {
            instructions: longest,
        });
    }
    let start = Instant::now();
    let mut flags = settings::builder();
    flags.set("opt_level", "speed").map_err(err)?;
    flags.set("use_colocated_libcalls", "false").map_err(err)?;
    flags.set("is_pic", "false").map_err(err)?;
    let isa = cranelift_native::builder()
        .map_err(err)?
        .finish(settings::Flags::new(flags))
        .map_err(err)?;
    if isa.pointer_type() != types::I64 {
        return Err(err("only 64-bit targets are supported"));
    }
    let mut module = JITModule::new(JITBuilder::with_isa(isa, default_libcall_names()));
    let mut ctx = module.make_context();
    let mut fctx = FunctionBuilderContext::new();
    let mut keep = Keep::default();
    let mut ids = Vec::with_capacity(specs.len());
    let mut widths = Vec::with_capacity(specs.len());
    for (n, spec) in specs.iter().enumerate() {
        if spec.members.is_empty() || (spec.members.len() > 1 && spec.output != Output::Members) {
            return Err(err("a function has one program, or a group's members"));
        }
        let mut sig = module.make_signature();
        for _ in 0..3 {
            sig.params.push(AbiParam::new(types::I64));
        }
        let id = module
            .declare_function(&format!("program{n}"), Linkage::Local, &sig)
            .map_err(err)?;
        ctx.func.signature = sig;
        ctx.func.name = UserFuncName::user(0, id.as_u32());
        {
            let b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
            let mut lower = Lower::new(b, &spec.members, &mut keep)?;
            lower.sum_into = spec.sum_into;
            lower.unchecked_gathers = spec.unchecked_gathers;
            lower.slot_positions = spec.slot_positions;
            widths.push(lower.program(spec.output)?);
        }
        let disasm = std::env::var_os("SIMDNLP_JIT_DISASM").is_some();
        ctx.set_disasm(disasm);
        module.define_function(id, &mut ctx).map_err(err)?;
        if disasm {
            if let Some(v) = ctx.compiled_code().and_then(|c| c.vcode.as_ref()) {
                let points = widths.last().map_or(LANES, |&(points, ..)| points);
                eprintln!(
                    "---- program{n} ({} members, {points} points per iteration)\n{v}",
                    spec.members.len()
                );
            }
        }
        module.clear_context(&mut ctx);
        ids.push(id);
    }
    module.finalize_definitions().map_err(err)?;
    let programs = ids
        .iter()
        .zip(&specs)
        .zip(widths)
        .map(
            |((&id, spec), (points_per_iteration, bodies, two_block_calls))| {
                let ptr = module.get_finalized_function(id);
                // SAFETY: `ptr` is the finalized code of a function declared with the signature
                // `(i64, i64, i64) -> ()` in the platform's default (C) calling convention, which
                // is `JitFn`'s.
                let func = unsafe { std::mem::transmute::<*const u8, JitFn>(ptr) };
                JitProgram {
                    func,
                    weighted: spec.members.iter().any(|m| m.1),
                    output: spec.output,
                    points_per_iteration,
                    bodies,
                    two_block_calls,
                    writes_values: spec.output != Output::Members
                        && spec.members[0]
                            .0
                            .ins
                            .iter()
                            .any(|i| matches!(i, Ins::Value { .. })),
                }
            },
        )
        .collect();
    let compile_time = start.elapsed();
    STATS_NANOS.fetch_add(
        u64::try_from(compile_time.as_nanos()).unwrap_or(u64::MAX),
        Ordering::Relaxed,
    );
    Ok(JitCode {
        module: ManuallyDrop::new(module),
        programs,
        _unary: keep.unary,
        _binary: keep.binary,
        compile_time,
    })
}

/// User functions referenced by address from the generated code.
#[derive(Default)]
struct Keep {
    unary: Vec<UnaryFn>,
    binary: Vec<BinaryFn>,
}

// ---- the C-ABI wrappers the generated code calls -------------------------------------------

extern "C" fn call_powf(v: f64, p: f64) -> f64 {
    v.powf(p)
}

extern "C" fn call_pow(a: f64, b: f64) -> f64 {
    Bin::Pow.eval(a, b)
}

extern "C" fn call_atan2(a: f64, b: f64) -> f64 {
    Bin::Atan2.eval(a, b)
}

extern "C" fn call_hypot(a: f64, b: f64) -> f64 {
    Bin::Hypot.eval(a, b)
}

/// `sin v` and `cos v` into `out[0]`, `out[1]`: the same values as [`Un::Sin`] and
/// [`Un::Cos`] ([`vmath::sin_cos`] computes both for the price of one; the tests check
/// every pair bitwise against the separate calls).
extern "C" fn call_sincos(v: f64, out: *mut [f64; 2]) {
    let (s, c) = vmath::sin_cos(v);
    // SAFETY: `out` is the 16-byte, 8-aligned stack slot the generated code passes.
    unsafe { *out = [s, c] };
}

extern "C" fn call_floor_div(a: i64, b: i64) -> i64 {
    floor_div(a, b)
}

extern "C" fn call_floor_rem(a: i64, b: i64) -> i64 {
    floor_rem(a, b)
}

/// Derivative `order` of a user univariate function; NaN if it panics.
extern "C" fn call_user_unary(f: *const UnaryInner, order: i32, v: f64) -> f64 {
    // SAFETY: `f` is the address of a `UnaryInner` kept alive by the `JitCode` whose code
    // calls this function (`Keep::unary`).
    let f = unsafe { &*f };
    match f.f.get(order as usize) {
        Some(g) => catch_unwind(AssertUnwindSafe(|| g(v))).unwrap_or(f64::NAN),
        None => f64::NAN,
    }
}

/// Part `part` of a user bivariate function; NaN if it panics.
extern "C" fn call_user_binary(f: *const BinaryInner, part: i32, a: f64, b: f64) -> f64 {
    // SAFETY: `f` is the address of a `BinaryInner` kept alive by the `JitCode` whose code
    // calls this function (`Keep::binary`).
    let f = unsafe { &*f };
    match f.f.get(part as usize) {
        Some(g) => catch_unwind(AssertUnwindSafe(|| g(a, b))).unwrap_or(f64::NAN),
        None => f64::NAN,
    }
}

/// Per instruction of `p`: whether it is a `sin` or `cos` of a register value that also
/// gets the other function (a register holds the same value from one definition to the
/// next), so that both come from one [`call_sincos`].
fn sincos_pairs(p: &Program<f64>) -> Vec<bool> {
    // (register, its definition number) of each sin/cos argument
    let mut version = vec![0u64; p.nregs];
    let mut next = 1u64;
    let mut args: Vec<Option<(u32, u64, bool)>> = Vec::with_capacity(p.ins.len());
    let mut seen: HashMap<(u32, u64), (bool, bool)> = HashMap::new();
    for ins in &p.ins {
        let arg = match ins {
            Ins::Un {
                op: UnOp::B(u @ (Un::Sin | Un::Cos)),
                a,
                ..
            } => version.get(*a as usize).map(|&v| (*a, v, *u == Un::Sin)),
            _ => None,
        };
        if let Some((r, v, is_sin)) = arg {
            let e = seen.entry((r, v)).or_default();
            if is_sin {
                e.0 = true;
            } else {
                e.1 = true;
            }
        }
        args.push(arg);
        if let Some(v) = ins.dst().and_then(|d| version.get_mut(d as usize)) {
            *v = next;
            next += 1;
        }
    }
    args.into_iter()
        .map(|a| a.is_some_and(|(r, v, _)| seen.get(&(r, v)) == Some(&(true, true))))
        .collect()
}

// ---- lowering ---------------------------------------------------------------------------------

/// The signatures of the callouts, imported once per function.
struct Sigs {
    f_f: SigRef,
    ff_f: SigRef,
    ii_i: SigRef,
    pif_f: SigRef,
    piff_f: SigRef,
    /// `fn(f64, *mut [f64; 2])` ([`call_sincos`])
    fp_v: SigRef,
}

/// A pure operation on given operands (or a load that no store of the function can
/// change), the key of the value numbering: the same key gives the same value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Key {
    Ar(Ar, Value, Value),
    U1(U1, Value),
    Un(Un, Value),
    Powi(i32, Value),
    Powf(u64, Value),
    Bin(Bin, Value, Value),
    F64(u64),
    I64(i64),
    IOp(IOp, Value, Value),
    /// `base[k]` of a data column (`true`: integer)
    Load(Value, Value, bool),
    /// `src[idx + off]` of `x` or `θ`
    Gather(Value, Value, i64),
    /// `src[idx + off..idx + off + 2]` of `x` or `θ` as an `F64X2` (a counting column)
    PairGather(Value, Value, i64),
    /// `(idx + off) as f64`
    ToF64(Value, i64),
    /// an `F64X2` with both lanes the scalar
    Splat(Value),
    /// an `F64X2` of two scalars (lane 0, lane 1)
    Pack(Value, Value),
    /// lane `1` of an `F64X2` as a scalar (lane 0: `false`)
    Extract(Value, bool),
    /// `base[k..k + 2]` of a real data column as an `F64X2`
    VLoad(Value, Value),
}

/// The byte offset `8·(off + lane)` of lane `lane`'s position past a column entry, where it
/// fits an `i32` (an immediate of the load).
fn lane_pair_offset(off: i64, lane: usize) -> Option<i32> {
    off.checked_add(lane as i64)
        .and_then(|o| o.checked_mul(8))
        .and_then(|b| i32::try_from(b).ok())
}

/// The `F64X2` of lane pair `lane / 2`'s outputs when the body has one output per point,
/// computed as a vector, and `lane` is the pair's first lane (so the pair's two outputs
/// are one 16-byte store at lane `lane`'s row).
fn one_output_pair(pairs: &[Vec<Option<Value>>], lane: usize) -> Option<Value> {
    if lane % 2 != 0 {
        return None;
    }
    match pairs.get(lane / 2).map(Vec::as_slice) {
        Some(&[Some(v)]) => Some(v),
        _ => None,
    }
}

/// Pairs of points in a [`LANES`]-point loop body: the body's arithmetic runs on `F64X2`
/// vectors of two points, lanes `2q` and `2q + 1` of pair `q`.
const PAIRS: usize = LANES / 2;

/// One vector loop of a function ([`Lower::vector_loops`]).
#[derive(Clone, Copy)]
struct VectorLoop {
    /// blocks of [`LANES`] points per iteration
    blocks: usize,
    /// the loop runs while at least this many points are left
    least: usize,
    /// the blocks after the first start at most at the range's last [`LANES`] points (an
    /// iteration with fewer than `blocks * LANES` points left computes some points twice
    /// and stores their outputs twice, the same bits), so that the loop takes every point
    /// once at least `least` (= [`LANES`]) are left; for functions that store their outputs
    clamped: bool,
}

/// Blocks of [`LANES`] points per iteration of the wide loop ([`Lower::wide`]). Three and
/// four were measured (session 27, bench-suites/README.md): no faster on rosenbrock, slower
/// Hessians on the OPF cases, and each block more to compile.
const BLOCKS: usize = 2;

/// Fewest lane-function calls per block ([`Lower::lane_call_sites`]) for which the wide
/// loop's two blocks are emitted in lockstep, one 16-point call for both where they call
/// the same function ([`Lower::two_blocks_body`]); with fewer (the OPF flows' one
/// `sin`/`cos` pair), block 1's call runs while block 0's instructions after its own call
/// wait for the results, and one 16-point call was not faster (session 28, w16).
const TWO_BLOCK_MIN_CALLS: usize = 2;

/// Longest function (in program instructions, summed over a group's members) that gets the
/// wide loop: its body is `BLOCKS` times the [`LANES`]-point one, and Cranelift's register
/// allocation grows faster than linearly with the body (see [`MAX_FUNCTION_INSTRUCTIONS`]).
const WIDE_MAX_INSTRUCTIONS: usize = 256;

/// The arguments of one lane-function call: the [`PAIRS`] `F64X2`s of the points
/// ([`vmath::PAIR_ARGUMENTS`], the last entries unused and equal) or the [`LANES`] scalars.
type LaneArgs = [Value; LANES];

/// The results of one lane-function call for the [`LANES`] points of a block, one
/// `F64X2` per lane pair: the first output and the second ([`LaneFn::SinCos`]'s `cos`;
/// the other functions': unused).
type LaneResults = ([Value; PAIRS], [Value; PAIRS]);

/// The lane function that computes `u` (`paired`: a `sin` or `cos` whose argument also gets
/// the other one, both from one call).
fn lane_fn(u: Un, paired: bool) -> LaneFn {
    match (u, paired) {
        (_, true) => LaneFn::SinCos,
        (Un::Exp, _) => LaneFn::Exp,
        (Un::Sin, _) => LaneFn::Sin,
        _ => LaneFn::Cos,
    }
}

/// One block's part of a member's body: per point its outputs, and per lane pair the
/// vectors of its outputs where computed as such ([`Lower::body`], [`Lower::pair_outs`]).
type BlockBody = (Vec<Vec<Value>>, Vec<Vec<Option<Value>>>);

/// The registers and points of one block of a loop body emitted with another in lockstep
/// ([`Lower::body_two_blocks`]), swapped into [`Lower`]'s fields of the same names while
/// that block's instructions are emitted ([`Lower::swap_block`]).
struct BlockState {
    ks: [Value; LANES],
    rels: [Value; LANES],
    int_loads: HashMap<(u32, usize), Value>,
    regs: Vec<Option<Value>>,
    vregs: Vec<Option<Value>>,
    iregs: Vec<Option<Value>>,
}

/// Lowers one program, or a group's programs, into a Cranelift function.
struct Lower<'a, 'b> {
    b: FunctionBuilder<'b>,
    /// the programs of the function and whether each one's outputs are weighted
    members: &'a [(&'a Program<f64>, bool)],
    /// per member: per instruction, a `sin` or `cos` whose argument also gets the other one
    paired_all: Vec<Vec<bool>>,
    /// the member being emitted, its program and weighting
    member: usize,
    p: &'a Program<f64>,
    weighted: bool,
    /// where the outputs go
    output: Output,
    /// see [`JitInput::unchecked_gathers`]
    unchecked_gathers: bool,
    /// in the copy of the vector loops that runs when every column of
    /// [`Lower::counting_mask`] counts up by one ([`JitArgs::counting`]), that mask (the
    /// unchecked gathers at those columns load both points of a lane pair at once), else 0
    counting: u64,
    /// see [`JitInput::slot_positions`]
    slot_positions: Option<&'a [(ISrc, i64)]>,
    /// [`Output::Members`]: per member, the base pointers of its outputs and weights (with
    /// `sum_into`, one output base: the summed block's)
    member_outs: Vec<Value>,
    member_wts: Vec<Value>,
    /// [`Output::Members`]: the members' outputs summed into one block per point
    sum_into: Option<SumInto<'a>>,
    /// value numbering of the current loop body, across the members
    memo: HashMap<Key, Value>,
    /// the programs' constants (by bits), defined once before the loops
    hoisted: HashMap<u64, Value>,
    /// `-0.0`, defined before the loops: a negation is a `bxor` with it (one
    /// instruction instead of materializing the sign mask at every use; the same bits
    /// as `fneg`)
    sign_mask: Value,
    /// the results (one `F64X2` per lane pair) of the lane functions of `exp`, `sin` and
    /// `cos` called in the current loop body, by function and arguments
    lane_memo: HashMap<(Un, LaneArgs), [Value; PAIRS]>,
    /// the `sin` and `cos` pairs (`F64X2` per lane pair) of one lane-function call of
    /// [`LaneFn::SinCos`] in the current loop body, by its arguments
    sincos_lanes: HashMap<LaneArgs, ([Value; PAIRS], [Value; PAIRS])>,
    keep: &'a mut Keep,
    sigs: Sigs,
    mem: MemFlags,
    /// loads of memory no store of the function writes (`x`, `θ`, the data columns),
    /// at addresses that are valid whenever they are computed: pure for Cranelift, so
    /// each is placed next to its first use rather than where it was emitted (without
    /// it, the loads of all lanes of a body come first and their values are spilled
    /// until the arithmetic, which sinks to the outputs, uses them)
    pure_mem: MemFlags,
    /// [`Lower::pure_mem`] for `F64X2` loads of two rows of a data column, which are
    /// 8-byte aligned only (so not folded into instructions that need 16)
    pair_mem: MemFlags,
    /// `F64X2` loads and stores of outputs and weights (8-byte aligned only)
    pair_store: MemFlags,
    /// per lane pair, per output of the current member's body: the `F64X2` of the two
    /// points' outputs (weighted) where it was computed as one, else `None`
    pair_outs: Vec<Vec<Option<Value>>>,
    // loop-invariant pointers, loaded in the entry block
    x: Value,
    x_len: Value,
    theta: Value,
    theta_len: Value,
    out: Value,
    values: Value,
    weights: Value,
    nan: Value,
    real_cols: HashMap<u32, Value>,
    int_cols: HashMap<u32, Value>,
    /// points per iteration of the body being emitted: [`LANES`], or 1 for the remainder
    width: usize,
    /// the lane whose instructions are being emitted
    lane: usize,
    /// per lane: the point `k` and its offset `k - first` (inside a loop body)
    ks: [Value; LANES],
    rels: [Value; LANES],
    /// the registers of lane `l` at `l * nregs..` (`l * niregs..` for integers); an
    /// unset entry of a register that is set in [`Lower::vregs`] is that vector's lane
    regs: Vec<Option<Value>>,
    /// the registers of the lane pair `q` (lanes `2q`, `2q + 1`) as one `F64X2` value at
    /// `q * nregs..`, where the pair's value was computed (or already packed) as a
    /// vector; whenever both this and the lanes' entries of [`Lower::regs`] are set, they
    /// hold the same numbers
    vregs: Vec<Option<Value>>,
    iregs: Vec<Option<Value>>,
    /// integer column values of the current points, per (column, lane)
    int_loads: HashMap<(u32, usize), Value>,
    /// per instruction: a `sin` or `cos` whose argument also gets the other one
    paired: Vec<bool>,
    /// `(sin a, cos a)` already computed for argument `a` (one-point bodies; 8-point
    /// bodies keep theirs in [`Lower::sincos_lanes`])
    sincos: HashMap<Value, (Value, Value)>,
    /// the two-value stack slot [`call_sincos`] writes (made on first use)
    sincos_slot: Option<ir::StackSlot>,
    /// the lane functions' signature: `extern "sysv64" fn(F64X2 × 4, *mut vmath::Slot)`
    /// ([`vmath::PAIR_ARGUMENTS`]) or `fn(f64 × 8, *mut vmath::Slot)`, returning the slot
    p_v: SigRef,
    /// the 16-point entry points' signature (`extern "sysv64" fn(F64X2 × 8, *mut
    /// vmath::SlotTwoBlocks)`, [`vmath::TWO_BLOCK_ENTRIES`]), imported at the first call
    p_v2: Option<SigRef>,
    /// calls of the 16-point entry points emitted so far ([`JitProgram::two_block_calls`])
    two_block_calls: usize,
    /// copies of the body emitted so far, one per block of points ([`JitProgram::bodies`])
    bodies: usize,
    /// the first points of the blocks after the first of the body being emitted where they
    /// are its block's parameters ([`VectorLoop::clamped`]), else `k + LANES·h`
    block_starts: Option<Vec<Value>>,
}

impl<'a, 'b> Lower<'a, 'b> {
    fn new(
        mut b: FunctionBuilder<'b>,
        members: &'a [(&'a Program<f64>, bool)],
        keep: &'a mut Keep,
    ) -> Result<Self, JitError> {
        let &(p, weighted) = members
            .first()
            .ok_or_else(|| err("a function without a program"))?;
        let i64t = types::I64;
        let f64t = types::F64;
        let call_conv = b.func.signature.call_conv;
        let mut sig = |params: &[ir::Type], ret: ir::Type| {
            let mut s = Signature::new(call_conv);
            s.params.extend(params.iter().map(|&t| AbiParam::new(t)));
            s.returns.push(AbiParam::new(ret));
            b.import_signature(s)
        };
        let sigs = Sigs {
            f_f: sig(&[f64t], f64t),
            ff_f: sig(&[f64t, f64t], f64t),
            ii_i: sig(&[i64t, i64t], i64t),
            pif_f: sig(&[i64t, types::I32, f64t], f64t),
            piff_f: sig(&[i64t, types::I32, f64t, f64t], f64t),
            fp_v: {
                let mut s = Signature::new(call_conv);
                s.params.push(AbiParam::new(f64t));
                s.params.push(AbiParam::new(i64t));
                b.import_signature(s)
            },
        };
        let p_v = {
            let mut s;
            if vmath::PAIR_ARGUMENTS {
                s = Signature::new(CallConv::SystemV);
                s.params.extend([AbiParam::new(types::F64X2); PAIRS]);
            } else {
                s = Signature::new(call_conv);
                s.params.extend([AbiParam::new(f64t); LANES]);
            }
            s.params.push(AbiParam::new(i64t));
            s.returns.push(AbiParam::new(i64t));
            b.import_signature(s)
        };
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let args = b.block_params(entry)[0];
        let mem = MemFlags::trusted();
        let mut ld = |off: usize| b.ins().load(i64t, mem, args, off as i32);
        let x = ld(offset_of!(JitArgs, x));
        let x_len = ld(offset_of!(JitArgs, x_len));
        let theta = ld(offset_of!(JitArgs, theta));
        let theta_len = ld(offset_of!(JitArgs, theta_len));
        let reals = ld(offset_of!(JitArgs, reals));
        let ints = ld(offset_of!(JitArgs, ints));
        let out = ld(offset_of!(JitArgs, out));
        let values = ld(offset_of!(JitArgs, values));
        let weights = ld(offset_of!(JitArgs, weights));
        let nan = ld(offset_of!(JitArgs, nan));
        // base pointers of the columns the program reads
        let (mut rc, mut ic): (Vec<u32>, Vec<u32>) = (Vec::new(), Vec::new());
        let mut note = |s: &ISrc| {
            if let ISrc::F(c) = s {
                ic.push(*c);
            }
        };
        for (p, _) in members {
            for i in &p.iins {
                note(&i.a);
                note(&i.b);
            }
            for i in &p.ins {
                match i {
                    Ins::X { idx, .. } | Ins::P { idx, .. } | Ins::I { idx, .. } => note(idx),
                    Ins::D { col, .. } => rc.push(*col),
                    _ => {}
                }
            }
        }
        rc.sort_unstable();
        rc.dedup();
        ic.sort_unstable();
        ic.dedup();
        let col_offset = |c: u32| -> Result<i32, JitError> {
            i32::try_from(c as usize * 8).map_err(|_| err("too many data columns"))
        };
        let mut real_cols = HashMap::new();
        for c in rc {
            let off = col_offset(c)?;
            real_cols.insert(c, b.ins().load(i64t, mem, reals, off));
        }
        let mut int_cols = HashMap::new();
        for c in ic {
            let off = col_offset(c)?;
            int_cols.insert(c, b.ins().load(i64t, mem, ints, off));
        }
        let zero = b.ins().iconst(i64t, 0);
        Ok(Lower {
            b,
            members,
            paired_all: members.iter().map(|(p, _)| sincos_pairs(p)).collect(),
            member: 0,
            p,
            weighted,
            output: Output::Store,
            unchecked_gathers: false,
            counting: 0,
            slot_positions: None,
            member_outs: Vec::new(),
            member_wts: Vec::new(),
            sum_into: None,
            memo: HashMap::new(),
            hoisted: HashMap::new(),
            sign_mask: zero,
            lane_memo: HashMap::new(),
            sincos_lanes: HashMap::new(),
            keep,
            sigs,
            mem,
            pure_mem: mem.with_readonly().with_can_move(),
            pair_store: MemFlags::new().with_notrap(),
            pair_outs: Vec::new(),
            pair_mem: MemFlags::new()
                .with_notrap()
                .with_readonly()
                .with_can_move(),
            x,
            x_len,
            theta,
            theta_len,
            out,
            values,
            weights,
            nan,
            real_cols,
            int_cols,
            width: 1,
            lane: 0,
            ks: [zero; LANES],
            rels: [zero; LANES],
            regs: vec![None; p.nregs * LANES],
            vregs: vec![None; p.nregs * PAIRS],
            iregs: vec![None; p.niregs * LANES],
            int_loads: HashMap::new(),
            paired: Vec::new(),
            sincos: HashMap::new(),
            sincos_slot: None,
            p_v,
            p_v2: None,
            two_block_calls: 0,
            bodies: 0,
            block_starts: None,
        })
    }

    /// Whether the function's vector loop runs `BLOCKS` blocks of [`LANES`] points per
    /// iteration ([`Lower::vector_loops`]): where its body calls a lane function (`exp`,
    /// `sin`, `cos`), so that the calls of a block's points run while the instructions after
    /// an earlier block's calls wait for their results (a lane function takes about 25 ns
    /// from its arguments to its results), it is at most [`WIDE_MAX_INSTRUCTIONS`] long, and
    /// its members' outputs are not summed into one block ([`SumInto`]).
    fn wide(&self) -> bool {
        let calls = self.members.iter().any(|(p, _)| {
            p.ins.iter().any(|i| {
                matches!(
                    i,
                    Ins::Un {
                        op: UnOp::B(Un::Exp | Un::Sin | Un::Cos),
                        ..
                    }
                )
            })
        });
        let length: usize = self.members.iter().map(|(p, _)| p.ins.len()).sum();
        calls && length <= WIDE_MAX_INSTRUCTIONS && self.sum_into.is_none()
    }

    /// The most lane-function calls one member's body makes for a block of points (a
    /// `sin`/`cos` pair of one register counted once; calls the value numbering saves not
    /// subtracted).
    fn lane_call_sites(&self) -> usize {
        let member_calls = |(m, (p, _)): (usize, &(&Program<f64>, bool))| {
            let paired = &self.paired_all[m];
            let mut pairs = Vec::new();
            let mut calls = 0;
            for (at, ins) in p.ins.iter().enumerate() {
                if let Ins::Un {
                    op: UnOp::B(u @ (Un::Exp | Un::Sin | Un::Cos)),
                    a,
                    ..
                } = *ins
                {
                    if u != Un::Exp && paired.get(at) == Some(&true) {
                        if !pairs.contains(&a) {
                            pairs.push(a);
                            calls += 1;
                        }
                    } else {
                        calls += 1;
                    }
                }
            }
            calls
        };
        self.members
            .iter()
            .enumerate()
            .map(member_calls)
            .max()
            .unwrap_or(0)
    }

    /// The function's vector loops, in the order they run (the one-point loop follows):
    /// [`LANES`] points per iteration; or, where the body calls a lane function
    /// ([`Lower::wide`]), `BLOCKS` blocks of [`LANES`] points, which a function that stores
    /// its outputs runs down to the range's last [`LANES`] points ([`VectorLoop::clamped`]:
    /// no [`LANES`]-point loop beside it, one copy of the body less to compile), and a
    /// function that sums or scatters its outputs (where a point's outputs must be added
    /// once) while `BLOCKS * LANES` points are left, then the [`LANES`]-point loop.
    fn vector_loops(&self, output: Output) -> Vec<VectorLoop> {
        let plain = VectorLoop {
            blocks: 1,
            least: LANES,
            clamped: false,
        };
        if !self.wide() {
            vec![plain]
        } else if matches!(output, Output::Store | Output::Members) {
            vec![VectorLoop {
                blocks: BLOCKS,
                least: LANES,
                clamped: true,
            }]
        } else {
            let wide = VectorLoop {
                blocks: BLOCKS,
                least: BLOCKS * LANES,
                clamped: false,
            };
            vec![wide, plain]
        }
    }

    /// The loops over `first..last` around the program's body, with its outputs put where
    /// `output` says: the vector loop (see [`Lower::wide`]), then the one-point loop;
    /// returns the points per iteration of the vector loop and the copies of the body
    /// ([`JitProgram::bodies`]) and its calls of 16-point entry points
    /// ([`JitProgram::two_block_calls`]).
    fn program(mut self, output: Output) -> Result<(usize, usize, usize), JitError> {
        let i64t = types::I64;
        let f64t = types::F64;
        let entry = self
            .b
            .current_block()
            .ok_or_else(|| err("no entry block"))?;
        let args = self.b.block_params(entry)[0];
        let first = self.b.block_params(entry)[1];
        let last = self.b.block_params(entry)[2];
        let step = self.p.out_regs.len();
        if output == Output::Sum && step != 1 {
            return Err(err("a summed program has one output per point"));
        }
        if output == Output::ScatterAtSlots {
            let at = self
                .slot_positions
                .filter(|at| {
                    at.len() == step && at.iter().all(|(base, _)| !matches!(base, ISrc::R(_)))
                })
                .ok_or_else(|| {
                    err("a scatter at the slots' positions needs one data position per output")
                })?;
            // the columns of the positions, also where the program reads none of them
            // (a linear term's gradient is constant)
            let ints = self
                .b
                .ins()
                .load(i64t, self.mem, args, offset_of!(JitArgs, ints) as i32);
            for &(base, _) in at {
                if let ISrc::F(c) = base {
                    if !self.int_cols.contains_key(&c) {
                        let off = i32::try_from(c as usize * 8)
                            .map_err(|_| err("too many data columns"))?;
                        let column = self.b.ins().load(i64t, self.mem, ints, off);
                        self.int_cols.insert(c, column);
                    }
                }
            }
        }
        // scatter: the positions, the bound they are checked against, and a sink slot that
        // an out-of-range position writes instead
        let scatter = if output == Output::Scatter {
            let globals =
                self.b
                    .ins()
                    .load(i64t, self.mem, args, offset_of!(JitArgs, globals) as i32);
            let out_len =
                self.b
                    .ins()
                    .load(i64t, self.mem, args, offset_of!(JitArgs, out_len) as i32);
            let data = ir::StackSlotData::new(ir::StackSlotKind::ExplicitSlot, 8, 3);
            let sink = self.b.create_sized_stack_slot(data);
            let sink = self.b.ins().stack_addr(i64t, sink, 0);
            Some((globals, out_len, sink))
        } else {
            None
        };
        self.output = output;
        if output == Output::Members {
            let mem = self.mem;
            let outs = self
                .b
                .ins()
                .load(i64t, mem, args, offset_of!(JitArgs, outs) as i32);
            let wts = self
                .b
                .ins()
                .load(i64t, mem, args, offset_of!(JitArgs, wts) as i32);
            let members = self.members;
            for (m, &(_, weighted)) in members.iter().enumerate() {
                let off = i32::try_from(m * 8).map_err(|_| err("too many members"))?;
                if m == 0 || self.sum_into.is_none() {
                    let out = self.b.ins().load(i64t, mem, outs, off);
                    self.member_outs.push(out);
                }
                let w = if weighted {
                    self.b.ins().load(i64t, mem, wts, off)
                } else {
                    self.b.ins().iconst(i64t, 0)
                };
                self.member_wts.push(w);
            }
        }
        let loops = self.vector_loops(output);
        let per = loops[0].blocks * LANES;
        // the vector loops, twice where unchecked gathers read positions from integer
        // columns: the general copy, and the counting copy that runs when all those
        // columns count up by one ([`JitArgs::counting`]); not for a summed objective,
        // whose chain of additions, not its loads, sets its pace (rosenbrock:200000's
        // `obj` took the same time with the pair loads, which cost a second copy of the
        // loop's body to compile)
        let mask = if output == Output::Sum {
            0
        } else {
            self.counting_mask()
        };
        let copies = if mask != 0 { 2 } else { 1 };
        let headers: Vec<Vec<(ir::Block, Value, ir::Block)>> = (0..copies)
            .map(|_| {
                loops
                    .iter()
                    .map(|_| {
                        let header = self.b.create_block();
                        let k = self.b.append_block_param(header, i64t);
                        (header, k, self.b.create_block())
                    })
                    .collect()
            })
            .collect();
        let header1 = self.b.create_block();
        let k1 = self.b.append_block_param(header1, i64t);
        let body1 = self.b.create_block();
        let exit = self.b.create_block();
        // the running sum of `Output::Sum`, carried through the loops
        let mut entry_args = vec![BlockArg::Value(first)];
        let (mut accs, mut acc1, mut acc_exit) = (Vec::new(), None, None);
        if output == Output::Sum {
            let init = self.b.ins().load(f64t, self.mem, self.out, 0);
            entry_args.push(BlockArg::Value(init));
            for copy in &headers {
                accs.push(
                    copy.iter()
                        .map(|&(header, _, _)| self.b.append_block_param(header, f64t))
                        .collect::<Vec<_>>(),
                );
            }
            acc1 = Some(self.b.append_block_param(header1, f64t));
            acc_exit = Some(self.b.append_block_param(exit, f64t));
        }
        self.hoist_constants();
        // the loops run while `k < end`; `end >= first`, so `end - k` never wraps (one
        // comparison per iteration instead of two and their `and`; a clamped loop's last
        // `k + per` may pass `end`, and it compares signed)
        let end = self.b.ins().umax(last, first);
        // the first point of the range's last `LANES` points (used where at least `LANES`
        // points are left)
        let last_block = self.b.ins().iadd_imm(end, -(LANES as i64));
        let first_header = |copy: usize| headers[copy].first().map_or(header1, |h| h.0);
        if copies == 2 {
            let counting =
                self.b
                    .ins()
                    .load(i64t, self.mem, args, offset_of!(JitArgs, counting) as i32);
            let mask_v = self.b.ins().iconst(i64t, mask as i64);
            let ours = self.b.ins().band(counting, mask_v);
            let all = self.b.ins().icmp(IntCC::Equal, ours, mask_v);
            self.b.ins().brif(
                all,
                first_header(1),
                &entry_args,
                first_header(0),
                &entry_args,
            );
        } else {
            self.b.ins().jump(first_header(0), &entry_args);
        }
        for (copy, headers) in headers.iter().enumerate() {
            self.counting = if copy == 1 { mask } else { 0 };
            self.vector_loops_copy(
                &loops,
                headers,
                accs.get(copy).map(Vec::as_slice),
                (header1, k1, body1),
                (end, last_block, first),
                output,
                scatter,
            )?;
        }
        self.counting = 0;
        // the remaining points one at a time
        self.b.switch_to_block(header1);
        let more = self.b.ins().icmp(IntCC::UnsignedLessThan, k1, end);
        let exit_args: Vec<BlockArg> = acc1.iter().map(|&a| BlockArg::Value(a)).collect();
        self.b.ins().brif(more, body1, &[], exit, &exit_args);
        self.b.switch_to_block(body1);
        let next = self.b.ins().iadd_imm(k1, 1);
        let acc1 = self.lanes_body(1, 1, k1, first, output, acc1, scatter)?;
        let mut next_args = vec![BlockArg::Value(next)];
        next_args.extend(acc1.map(BlockArg::Value));
        self.b.ins().jump(header1, &next_args);
        self.b.switch_to_block(exit);
        if let Some(sum) = acc_exit {
            self.b.ins().store(self.mem, sum, self.out, 0);
        }
        self.b.ins().return_(&[]);
        self.b.seal_all_blocks();
        let (bodies, two_block_calls) = (self.bodies, self.two_block_calls);
        self.b.finalize();
        Ok((per, bodies, two_block_calls))
    }

    /// One copy of the vector loops `loops` (see [`Lower::program`]) with their `headers`
    /// (header block, its point parameter, body block) and, for [`Output::Sum`], the
    /// headers' running-sum parameters `accs`; the last one exits to `one_point`, the
    /// one-point loop's (header, point, body). `bounds` is `(end, last_block, first)`.
    #[allow(clippy::too_many_arguments)]
    fn vector_loops_copy(
        &mut self,
        loops: &[VectorLoop],
        headers: &[(ir::Block, Value, ir::Block)],
        accs: Option<&[Value]>,
        one_point: (ir::Block, Value, ir::Block),
        (end, last_block, first): (Value, Value, Value),
        output: Output,
        scatter: Option<(Value, Value, Value)>,
    ) -> Result<(), JitError> {
        let i64t = types::I64;
        for (n, (spec, &(header, k, body))) in loops.iter().zip(headers).enumerate() {
            let acc = accs.and_then(|a| a.get(n)).copied();
            let per = spec.blocks * LANES;
            // `per` points k..k + per
            self.b.switch_to_block(header);
            let (next_header, _, _) = headers.get(n + 1).copied().unwrap_or(one_point);
            let mut to_next = vec![BlockArg::Value(k)];
            to_next.extend(acc.map(BlockArg::Value));
            let left = self.b.ins().isub(end, k);
            if spec.clamped {
                // the body gets its blocks' starts as parameters: `k + LANES·h` while `per`
                // points are left, then, while `least`, `min(k + LANES·h, end − LANES)` (the
                // last iteration's `k + per` passes `end`: signed comparisons)
                let starts: Vec<Value> = (1..spec.blocks)
                    .map(|_| self.b.append_block_param(body, i64t))
                    .collect();
                let full: Vec<BlockArg> = (1..spec.blocks)
                    .map(|h| BlockArg::Value(self.b.ins().iadd_imm(k, (h * LANES) as i64)))
                    .collect();
                let enough =
                    self.b
                        .ins()
                        .icmp_imm(IntCC::SignedGreaterThanOrEqual, left, per as i64);
                let rest = self.b.create_block();
                self.b.ins().brif(enough, body, &full, rest, &[]);
                self.b.switch_to_block(rest);
                let clamped: Vec<BlockArg> = (1..spec.blocks)
                    .map(|h| {
                        let kh = self.b.ins().iadd_imm(k, (h * LANES) as i64);
                        BlockArg::Value(self.b.ins().umin(kh, last_block))
                    })
                    .collect();
                let enough =
                    self.b
                        .ins()
                        .icmp_imm(IntCC::SignedGreaterThanOrEqual, left, spec.least as i64);
                self.b
                    .ins()
                    .brif(enough, body, &clamped, next_header, &to_next);
                self.block_starts = Some(starts);
            } else {
                let enough = self.b.ins().icmp_imm(
                    IntCC::UnsignedGreaterThanOrEqual,
                    left,
                    spec.least as i64,
                );
                self.b.ins().brif(enough, body, &[], next_header, &to_next);
            }
            self.b.switch_to_block(body);
            let next = self.b.ins().iadd_imm(k, per as i64);
            let acc = self.lanes_body(LANES, spec.blocks, k, first, output, acc, scatter)?;
            self.block_starts = None;
            let mut next_args = vec![BlockArg::Value(next)];
            next_args.extend(acc.map(BlockArg::Value));
            self.b.ins().jump(header, &next_args);
        }
        Ok(())
    }

    /// One loop body over the `blocks * width` points `k..k + blocks * width`: the
    /// program(s) for each block of `width` points in turn, then the outputs point by point
    /// in order (so the lane-function calls of a later block come before the outputs of an
    /// earlier one, whose results they no longer wait for); returns the running sum of
    /// [`Output::Sum`].
    #[allow(clippy::too_many_arguments)]
    fn lanes_body(
        &mut self,
        width: usize,
        blocks: usize,
        k: Value,
        first: Value,
        output: Output,
        mut acc: Option<Value>,
        scatter: Option<(Value, Value, Value)>,
    ) -> Result<Option<Value>, JitError> {
        // values of the other body do not dominate this one
        self.int_loads.clear();
        self.sincos.clear();
        self.memo.clear();
        self.lane_memo.clear();
        self.sincos_lanes.clear();
        self.width = width;
        if blocks > 1 && (width != LANES || self.sum_into.is_some()) {
            return Err(err(
                "several blocks per body of LANES points without a summed block",
            ));
        }
        self.bodies += blocks;
        if blocks == 2
            && vmath::TWO_BLOCK_ENTRIES
            && self.sum_into.is_none()
            && self.lane_call_sites() >= TWO_BLOCK_MIN_CALLS
        {
            return self.two_blocks_body(k, first, output, acc, scatter);
        }
        let mut computed = Vec::with_capacity(blocks);
        for h in 0..blocks {
            let kh = if h == 0 {
                k
            } else {
                match self.block_starts.as_ref().and_then(|s| s.get(h - 1)) {
                    Some(&kh) => kh,
                    None => self.b.ins().iadd_imm(k, (h * width) as i64),
                }
            };
            // the integer columns' entries of this block's points
            self.int_loads.clear();
            for lane in 0..width {
                let kl = if lane == 0 {
                    kh
                } else {
                    self.b.ins().iadd_imm(kh, lane as i64)
                };
                self.ks[lane] = kl;
                self.rels[lane] = self.b.ins().isub(kl, first);
            }
            if self.sum_into.is_some() {
                return self.summed_block_body(width, output, acc);
            }
            let mut all = Vec::with_capacity(self.members.len());
            let mut all_pairs = Vec::with_capacity(self.members.len());
            for m in 0..self.members.len() {
                self.select(m);
                all.push(self.body()?);
                all_pairs.push(std::mem::take(&mut self.pair_outs));
            }
            let int_loads = std::mem::take(&mut self.int_loads);
            computed.push((self.ks, self.rels, int_loads, all, all_pairs));
        }
        for (ks, rels, int_loads, all, all_pairs) in computed {
            (self.ks, self.rels, self.int_loads) = (ks, rels, int_loads);
            acc = self.block_outputs(output, acc, scatter, all, all_pairs)?;
        }
        Ok(acc)
    }

    /// [`Lower::lanes_body`] of two blocks of [`LANES`] points, `k..k + LANES` and the
    /// second block's (`k + LANES`, or its clamped start, [`Lower::block_starts`]), each
    /// member's two blocks emitted in lockstep ([`Lower::body_two_blocks`]: one call of the
    /// 16-point entry point for both blocks' points where both call the same lane
    /// function), then block 0's outputs, then block 1's.
    fn two_blocks_body(
        &mut self,
        k: Value,
        first: Value,
        output: Output,
        mut acc: Option<Value>,
        scatter: Option<(Value, Value, Value)>,
    ) -> Result<Option<Value>, JitError> {
        let mut states = Vec::with_capacity(2);
        for h in 0..2 {
            let kh = if h == 0 {
                k
            } else {
                match self.block_starts.as_ref().and_then(|s| s.first()) {
                    Some(&kh) => kh,
                    None => self.b.ins().iadd_imm(k, LANES as i64),
                }
            };
            let mut ks = [kh; LANES];
            let mut rels = [kh; LANES];
            for lane in 0..LANES {
                if lane > 0 {
                    ks[lane] = self.b.ins().iadd_imm(kh, lane as i64);
                }
                rels[lane] = self.b.ins().isub(ks[lane], first);
            }
            states.push(BlockState {
                ks,
                rels,
                int_loads: HashMap::new(),
                regs: Vec::new(),
                vregs: Vec::new(),
                iregs: Vec::new(),
            });
        }
        let mut states: [BlockState; 2] =
            states.try_into().map_err(|_| err("two blocks expected"))?;
        let members = self.members.len();
        let mut computed: [_; 2] =
            std::array::from_fn(|_| (Vec::with_capacity(members), Vec::with_capacity(members)));
        for m in 0..members {
            self.select(m);
            for state in states.iter_mut() {
                state.regs.clone_from(&self.regs);
                state.vregs.clone_from(&self.vregs);
                state.iregs.clone_from(&self.iregs);
            }
            let outs = self.body_two_blocks(&mut states);
            // hand the pairing back for the next body
            self.paired_all[self.member] = std::mem::take(&mut self.paired);
            for (c, (outs, pairs)) in computed.iter_mut().zip(outs?) {
                c.0.push(outs);
                c.1.push(pairs);
            }
        }
        for (state, (all, all_pairs)) in states.iter_mut().zip(computed) {
            self.swap_block(state);
            acc = self.block_outputs(output, acc, scatter, all, all_pairs)?;
        }
        Ok(acc)
    }

    /// Swaps the registers and points of `state` with those of [`Lower`] (entering the
    /// block, or leaving it).
    fn swap_block(&mut self, state: &mut BlockState) {
        std::mem::swap(&mut self.ks, &mut state.ks);
        std::mem::swap(&mut self.rels, &mut state.rels);
        std::mem::swap(&mut self.int_loads, &mut state.int_loads);
        std::mem::swap(&mut self.regs, &mut state.regs);
        std::mem::swap(&mut self.vregs, &mut state.vregs);
        std::mem::swap(&mut self.iregs, &mut state.iregs);
    }

    /// The current program's instructions for the two blocks of [`LANES`] points of
    /// `states` in lockstep: up to each lane-function call, block 0's instructions since
    /// the last one, then block 1's, then one call for both blocks' points where both call
    /// the same function on different arguments (the 16-point entry point,
    /// [`LaneFn::address_two_blocks`]; bitwise the 8-point calls' results per point); per
    /// block, its outputs and their vectors of lane pairs ([`Lower::body`]).
    fn body_two_blocks(
        &mut self,
        states: &mut [BlockState; 2],
    ) -> Result<[BlockBody; 2], JitError> {
        let p = self.p;
        for state in states.iter_mut() {
            self.swap_block(state);
            let done = self.body_prologue();
            self.swap_block(state);
            done?;
        }
        let mut pending: Vec<usize> = Vec::new();
        for (at, ins) in p.ins.iter().enumerate() {
            let Ins::Un {
                op: UnOp::B(u @ (Un::Exp | Un::Sin | Un::Cos)),
                dst,
                a,
            } = *ins
            else {
                pending.push(at);
                continue;
            };
            let f = lane_fn(u, self.paired[at]);
            let mut args = [[self.nan; LANES]; 2];
            let mut results: [Option<[Value; PAIRS]>; 2] = [None; 2];
            for h in 0..2 {
                self.swap_block(&mut states[h]);
                let mut block_pending = pending.clone();
                let done = self
                    .flush(&mut block_pending)
                    .and_then(|()| self.lane_args(a));
                self.swap_block(&mut states[h]);
                args[h] = done?;
                results[h] = self.lane_lookup(u, &args[h]);
            }
            pending.clear();
            if results == [None, None] && args[0] != args[1] {
                let [r0, r1] = self.lane_call_two_blocks(f, &args);
                results = [
                    Some(self.lane_record(u, f, args[0], r0)),
                    Some(self.lane_record(u, f, args[1], r1)),
                ];
            }
            for h in 0..2 {
                let r = match results[h] {
                    Some(r) => r,
                    // one block's call only, or both blocks' points the same
                    None => match self.lane_lookup(u, &args[h]) {
                        Some(r) => r,
                        None => {
                            let r = self.lane_call(f, &args[h]);
                            self.lane_record(u, f, args[h], r)
                        }
                    },
                };
                self.swap_block(&mut states[h]);
                let done = self.set_pairs(dst, r);
                self.swap_block(&mut states[h]);
                done?;
            }
        }
        let mut outs = Vec::with_capacity(2);
        for state in states.iter_mut() {
            self.swap_block(state);
            let mut block_pending = pending.clone();
            let done = self
                .flush(&mut block_pending)
                .and_then(|()| self.body_outputs());
            let pairs = std::mem::take(&mut self.pair_outs);
            self.swap_block(state);
            outs.push((done?, pairs));
        }
        outs.try_into().map_err(|_| err("two blocks expected"))
    }

    /// The body of a group function whose members' outputs are summed into one block per
    /// point ([`SumInto`]), for the `width` points of [`Lower::ks`].
    fn summed_block_body(
        &mut self,
        width: usize,
        output: Output,
        acc: Option<Value>,
    ) -> Result<Option<Value>, JitError> {
        if let (Output::Members, Some(sum)) = (output, self.sum_into) {
            // each member's outputs are added into the running sums right after its body
            // (member order, then output order, as `SumInto` states), and an entry is
            // stored once its last term is in: fewer values live across the members
            let stride = i64::try_from(sum.entries * 8).map_err(|_| err("too many outputs"))?;
            let mut last = vec![0usize; sum.entries];
            for (m, map) in sum.entry_of.iter().enumerate() {
                for &e in map {
                    last[e as usize] = m;
                }
            }
            let mut sums: Vec<Option<Value>> = vec![None; width * sum.entries];
            let mut rows: [Option<Value>; LANES] = [None; LANES];
            for m in 0..self.members.len() {
                self.select(m);
                let outs = self.body()?;
                for (lane, outs) in outs.iter().enumerate() {
                    let sums = &mut sums[lane * sum.entries..(lane + 1) * sum.entries];
                    for (&v, &e) in outs.iter().zip(&sum.entry_of[m]) {
                        let slot = &mut sums[e as usize];
                        *slot = Some(match *slot {
                            None => v,
                            Some(a) => self.b.ins().fadd(a, v),
                        });
                    }
                    for (e, v) in sums.iter().enumerate() {
                        if last[e] != m {
                            continue;
                        }
                        let v =
                            v.ok_or_else(|| err("an entry of a summed block without a term"))?;
                        let row = match rows[lane] {
                            Some(row) => row,
                            None => {
                                let (base, k) = (self.member_outs[0], self.ks[0]);
                                let row = self.lane_addr(base, k, lane, stride);
                                rows[lane] = Some(row);
                                row
                            }
                        };
                        self.b.ins().store(self.mem, v, row, (e * 8) as i32);
                    }
                }
            }
            return Ok(acc);
        }
        Err(err("a summed block outside a group function"))
    }

    /// Stores (or sums, or scatters) the outputs `all` of one block of points (those of
    /// [`Lower::ks`]) computed by [`Lower::body`], `all_pairs` their vectors of lane pairs;
    /// returns the running sum of [`Output::Sum`].
    fn block_outputs(
        &mut self,
        output: Output,
        mut acc: Option<Value>,
        scatter: Option<(Value, Value, Value)>,
        mut all: Vec<Vec<Vec<Value>>>,
        all_pairs: Vec<Vec<Vec<Option<Value>>>>,
    ) -> Result<Option<Value>, JitError> {
        let i64t = types::I64;
        let f64t = types::F64;
        if output == Output::Members {
            for (m, outs) in all.iter().enumerate() {
                let step = outs.first().map_or(0, |o| o.len());
                let stride = i64::try_from(step * 8).map_err(|_| err("too many outputs"))?;
                for (lane, outs) in outs.iter().enumerate() {
                    if outs.is_empty() {
                        continue;
                    }
                    let (base, k) = (self.member_outs[m], self.ks[0]);
                    self.store_outputs(&all_pairs[m], lane, outs, |l, lane| {
                        l.lane_addr(base, k, lane, stride)
                    });
                }
            }
            return Ok(acc);
        }
        let step = self.p.out_regs.len();
        let outs = all
            .pop()
            .ok_or_else(|| err("a function without a program"))?;
        for (lane, outs) in outs.iter().enumerate() {
            self.lane = lane;
            match (output, acc, scatter) {
                (Output::Sum, Some(a), _) => {
                    acc = Some(self.b.ins().fadd(a, outs[0]));
                }
                (Output::Scatter, _, Some((globals, out_len, sink))) => {
                    let row = self.row_addr(globals, (step * 8) as i64);
                    for (s, &v) in outs.iter().enumerate() {
                        let g = self.b.ins().load(i64t, self.mem, row, (s * 8) as i32);
                        let inside = self.b.ins().icmp(IntCC::UnsignedLessThan, g, out_len);
                        let byte = self.b.ins().ishl_imm(g, 3);
                        let at = self.b.ins().iadd(self.out, byte);
                        let at = self.b.ins().select(inside, at, sink);
                        let old = self.b.ins().load(f64t, self.mem, at, 0);
                        let new = self.b.ins().fadd(old, v);
                        self.b.ins().store(self.mem, new, at, 0);
                    }
                }
                (Output::ScatterAtSlots, _, _) => {
                    let at = self
                        .slot_positions
                        .ok_or_else(|| err("a scatter without positions"))?;
                    for (&v, &(base, off)) in outs.iter().zip(at) {
                        self.add_at_position(v, base, off)?;
                    }
                }
                _ if step > 0 => {
                    let pairs = all_pairs.last().map_or(&[][..], |p| &p[..]);
                    let (out, rel0) = (self.out, self.rels[0]);
                    self.store_outputs(pairs, lane, outs, |l, lane| {
                        l.lane_addr(out, rel0, lane, (step * 8) as i64)
                    });
                }
                _ => {}
            }
        }
        Ok(acc)
    }

    /// Stores lane `lane`'s outputs `outs` (consecutive) at the row `row_of(lane)`.
    /// The outputs computed as their lane pair's vector are stored by the pair's first
    /// lane for both points (the second lane stores only its scalar outputs):
    /// - one output per point ([`one_output_pair`]): the two points' rows are adjacent,
    ///   one 16-byte store;
    /// - two consecutive outputs `s`, `s + 1`: the pair's two rows of them, `[s, s + 1]`
    ///   of lane 0 and of lane 1, one 16-byte store each (`punpcklqdq`, `punpckhqdq`);
    /// - a lone one: lane 0 as a scalar store, lane 1 with one `pextrq` to memory.
    fn store_outputs(
        &mut self,
        pairs: &[Vec<Option<Value>>],
        lane: usize,
        outs: &[Value],
        mut row_of: impl FnMut(&mut Self, usize) -> Value,
    ) {
        let high = lane % 2 == 1;
        if let Some(v) = one_output_pair(pairs, lane & !1) {
            if !high {
                let row = row_of(self, lane);
                self.b.ins().store(self.pair_store, v, row, 0);
            }
            return;
        }
        let vectors = pairs.get(lane / 2).map_or(&[][..], Vec::as_slice);
        let vector = |s: usize| vectors.get(s).copied().flatten();
        let row = row_of(self, lane);
        let mut high_row = None;
        let mut s = 0;
        while s < outs.len() {
            let off = (s * 8) as i32;
            let Some(a) = vector(s) else {
                self.b.ins().store(self.mem, outs[s], row, off);
                s += 1;
                continue;
            };
            if high {
                // stored with lane `lane - 1`'s
                s += 1;
                continue;
            }
            let row1 = match high_row {
                Some(r) => r,
                None => {
                    let r = row_of(self, lane + 1);
                    high_row = Some(r);
                    r
                }
            };
            let little = MemFlags::new().with_endianness(ir::Endianness::Little);
            match vector(s + 1) {
                Some(b) => {
                    // byte shuffles of the two vectors: lane 0 of both, lane 1 of both
                    let a = self.b.ins().bitcast(types::I8X16, little, a);
                    let b = self.b.ins().bitcast(types::I8X16, little, b);
                    for (half, at) in [(0u8, row), (8, row1)] {
                        let mask: Vec<u8> = (0..16)
                            .map(|i| if i < 8 { half + i } else { 16 + half + i - 8 })
                            .collect();
                        let mask = self.b.func.dfg.immediates.push(mask.into());
                        let rows = self.b.ins().shuffle(a, b, mask);
                        self.b.ins().store(self.pair_store, rows, at, off);
                    }
                    s += 2;
                }
                None => {
                    self.b.ins().store(self.mem, outs[s], row, off);
                    let bits = self.b.ins().bitcast(types::I64X2, little, a);
                    let high_bits = self.b.ins().extractlane(bits, 1);
                    self.b.ins().store(self.mem, high_bits, row1, off);
                    s += 1;
                }
            }
        }
    }

    /// `out[base + off] += v` at the current lane's point, `base` a data column's entry
    /// (the load the program's `x` gathers of that column already made) or a constant;
    /// no bounds check ([`Output::ScatterAtSlots`]).
    fn add_at_position(&mut self, v: Value, base: ISrc, off: i64) -> Result<(), JitError> {
        let i = self.isrc(base)?;
        let (i, byte_off) = match off.checked_mul(8).and_then(|b| i32::try_from(b).ok()) {
            Some(byte_off) => (i, byte_off),
            None => (self.b.ins().iadd_imm(i, off), 0),
        };
        let byte = self.b.ins().ishl_imm(i, 3);
        let at = self.b.ins().iadd(self.out, byte);
        let old = self.b.ins().load(types::F64, self.mem, at, byte_off);
        let new = self.b.ins().fadd(old, v);
        self.b.ins().store(self.mem, new, at, byte_off);
        Ok(())
    }

    /// Makes member `m` the program being emitted, with no register set yet.
    fn select(&mut self, m: usize) {
        let (p, weighted) = self.members[m];
        self.member = m;
        self.p = p;
        self.weighted = weighted;
        self.paired = std::mem::take(&mut self.paired_all[m]);
        self.regs.clear();
        self.regs.resize(p.nregs * LANES, None);
        self.vregs.clear();
        self.vregs.resize(p.nregs * PAIRS, None);
        self.iregs.clear();
        self.iregs.resize(p.niregs * LANES, None);
    }

    /// The current program's instructions for the points of the current body
    /// (`self.width` of them, lane by lane between the calls of the lane functions);
    /// returns each point's outputs (weighted when the program is).
    fn body(&mut self) -> Result<Vec<Vec<Value>>, JitError> {
        let outs = self.body_instructions();
        // hand the pairing back for the next body
        self.paired_all[self.member] = std::mem::take(&mut self.paired);
        outs
    }

    fn body_instructions(&mut self) -> Result<Vec<Vec<Value>>, JitError> {
        let p = self.p;
        self.body_prologue()?;
        // the instructions since the last lane-function call, emitted lane by lane at the
        // next one (fewer values live across each call than in lockstep)
        let mut pending: Vec<usize> = Vec::new();
        for (at, ins) in p.ins.iter().enumerate() {
            if let Ins::Un {
                op: UnOp::B(u @ (Un::Exp | Un::Sin | Un::Cos)),
                dst,
                a,
            } = ins
            {
                self.flush(&mut pending)?;
                self.transcendental(*u, self.paired[at], *dst, *a)?;
            } else {
                pending.push(at);
            }
        }
        self.flush(&mut pending)?;
        self.body_outputs()
    }

    /// The start of the current program's body for the points of the current body: its
    /// constants and integer instructions.
    fn body_prologue(&mut self) -> Result<(), JitError> {
        let p = self.p;
        if self.output == Output::Members && p.ins.iter().any(|i| matches!(i, Ins::Value { .. })) {
            return Err(err("a group member writes values"));
        }
        for &(r, c) in &p.consts {
            let v = self.fconst(c);
            for lane in 0..self.width {
                self.lane = lane;
                self.set(r, v)?;
            }
        }
        for lane in 0..self.width {
            self.lane = lane;
            for ins in &p.iins {
                let a = self.isrc(ins.a)?;
                let b = self.isrc(ins.b)?;
                let v = self.pure(Key::IOp(ins.op, a, b), |l| match ins.op {
                    IOp::Add => l.b.ins().iadd(a, b),
                    IOp::Sub => l.b.ins().isub(a, b),
                    IOp::Mul => l.b.ins().imul(a, b),
                    IOp::FloorDiv => l.call_ii(call_floor_div, a, b),
                    IOp::Rem => l.call_ii(call_floor_rem, a, b),
                });
                let at = lane * p.niregs + ins.dst as usize;
                *self
                    .iregs
                    .get_mut(at)
                    .ok_or_else(|| err("integer register out of range"))? = Some(v);
            }
        }
        Ok(())
    }

    /// The current program's outputs for the points of the current body, once its
    /// instructions are emitted: each point's outputs (weighted when the program is), the
    /// vectors of lane pairs in [`Lower::pair_outs`].
    fn body_outputs(&mut self) -> Result<Vec<Vec<Value>>, JitError> {
        let p = self.p;
        let step = p.out_regs.len();
        if i32::try_from(step * 8).is_err() {
            return Err(err("too many outputs"));
        }
        // the outputs computed as vectors of a lane pair stay vectors (weighted by a
        // vector of the pair's two weights)
        self.pair_outs.clear();
        if self.width == LANES {
            let nregs = p.nregs;
            for q in 0..PAIRS {
                let vectors: Vec<Option<Value>> = p
                    .out_regs
                    .iter()
                    .map(|&r| self.vregs.get(q * nregs + r as usize).copied().flatten())
                    .collect();
                let w = if self.weighted && vectors.iter().any(Option::is_some) {
                    let at = self.weights_addr(2 * q);
                    Some(self.b.ins().load(types::F64X2, self.pair_store, at, 0))
                } else {
                    None
                };
                let row = vectors
                    .into_iter()
                    .map(|v| v.map(|v| w.map_or(v, |w| self.ar(Ar::Mul, w, v))))
                    .collect();
                self.pair_outs.push(row);
            }
        }
        let mut all = Vec::with_capacity(self.width);
        for lane in 0..self.width {
            self.lane = lane;
            let mut w = None;
            let mut outs = Vec::with_capacity(step);
            for (s, &r) in p.out_regs.iter().enumerate() {
                let vector = self
                    .pair_outs
                    .get(lane / 2)
                    .and_then(|row| row.get(s).copied().flatten());
                let v = match vector {
                    Some(vector) => {
                        let high = lane % 2 == 1;
                        self.pure(Key::Extract(vector, high), |l| {
                            l.b.ins().extractlane(vector, u8::from(high))
                        })
                    }
                    None => {
                        let mut v = self.reg(r)?;
                        if self.weighted {
                            let w = match w {
                                Some(w) => w,
                                None => {
                                    let at = self.weights_addr(lane);
                                    let v = self.b.ins().load(types::F64, self.mem, at, 0);
                                    w = Some(v);
                                    v
                                }
                            };
                            v = self.weigh(w, v);
                        }
                        v
                    }
                };
                outs.push(v);
            }
            all.push(outs);
        }
        Ok(all)
    }

    /// The address of the weight of lane `lane`'s point (of the current member).
    fn weights_addr(&mut self, lane: usize) -> Value {
        if self.output == Output::Members {
            let (base, k) = (self.member_wts[self.member], self.ks[0]);
            self.lane_addr(base, k, lane, 8)
        } else {
            let (base, rel0) = (self.weights, self.rels[0]);
            self.lane_addr(base, rel0, lane, 8)
        }
    }

    /// `w * v` for an output `v` of a weighted program, computed once per loop body for
    /// each `(w, v)` (outputs that share a register share the product). An output that
    /// is a negation `v = -u` gives `-(w * u)`, bitwise `w * (-u)` (IEEE 754 rounds
    /// magnitudes the same whatever the signs; only a NaN's sign bit may differ), so
    /// `u` and `-u` among a program's outputs cost one product.
    fn weigh(&mut self, w: Value, v: Value) -> Value {
        let dfg = &self.b.func.dfg;
        let negated = match dfg.value_def(v) {
            ir::ValueDef::Result(inst, 0)
                if dfg.insts[inst].opcode() == ir::Opcode::Bxor
                    && dfg.inst_args(inst)[1] == self.sign_mask =>
            {
                Some(dfg.inst_args(inst)[0])
            }
            _ => None,
        };
        match negated {
            Some(u) => {
                let product = self.ar(Ar::Mul, w, u);
                self.u1(U1::Neg, product)
            }
            None => self.ar(Ar::Mul, w, v),
        }
    }

    /// Emits the instructions `pending` (positions in the program) for every lane and
    /// empties it: with one point, that point's; with [`LANES`], pair of lanes by pair of
    /// lanes, the per-lane IEEE operations ([`Lower::pair_instruction`]) as one `F64X2`
    /// instruction for both lanes of a pair, the others lane by lane.
    fn flush(&mut self, pending: &mut Vec<usize>) -> Result<(), JitError> {
        if self.width == 1 {
            self.lane = 0;
            for &at in pending.iter() {
                self.instruction(at)?;
            }
        } else {
            for q in 0..PAIRS {
                for &at in pending.iter() {
                    if !self.pair_instruction(q, at)? {
                        for lane in [2 * q, 2 * q + 1] {
                            self.lane = lane;
                            self.instruction(at)?;
                        }
                    }
                }
            }
        }
        pending.clear();
        Ok(())
    }

    /// Instruction `at` of the program for both lanes of pair `q` as `F64X2` instructions,
    /// when it is arithmetic that IEEE 754 rounds per lane (`+ - * /`, negation, `abs`,
    /// `abs2`, `inv`, `sqrt`, `deg2rad`, `rad2deg`, integer powers and the fused
    /// superinstructions of these: bitwise each lane's scalar result, whatever the other
    /// lane holds) or a data column's load (two consecutive rows); returns whether it did.
    fn pair_instruction(&mut self, q: usize, at: usize) -> Result<bool, JitError> {
        let p = self.p;
        let ins = p
            .ins
            .get(at)
            .ok_or_else(|| err("instruction out of range"))?;
        let v = match ins {
            &(Ins::X { idx, off, .. } | Ins::P { idx, off, .. }) => {
                let src = match ins {
                    Ins::X { .. } => self.x,
                    _ => self.theta,
                };
                match self.pair_gather(src, idx, off, q)? {
                    Some(v) => v,
                    None => return Ok(false),
                }
            }
            Ins::D { col, .. } => {
                let base = *self
                    .real_cols
                    .get(col)
                    .ok_or_else(|| err("unknown data column"))?;
                let (k, k0) = (self.ks[2 * q], self.ks[0]);
                let flags = self.pair_mem;
                self.pure(Key::VLoad(base, k), |l| {
                    let at = l.lane_addr(base, k0, 2 * q, 8);
                    l.b.ins().load(types::F64X2, flags, at, 0)
                })
            }
            Ins::Un {
                op:
                    op @ (UnOp::Powi(_)
                    | UnOp::B(
                        Un::Neg
                        | Un::Abs
                        | Un::Abs2
                        | Un::Sqrt
                        | Un::Inv
                        | Un::Deg2rad
                        | Un::Rad2deg,
                    )),
                a,
                ..
            } => {
                let a = self.reg_pair(q, *a)?;
                self.unary(op, a)
            }
            Ins::Bin {
                op: op @ BinOp::B(Bin::Add | Bin::Sub | Bin::Mul | Bin::Div),
                a,
                b,
                ..
            } => {
                let a = self.src_pair(q, *a)?;
                let b = self.src_pair(q, *b)?;
                self.binary(op, a, b)
            }
            Ins::Fused { kind, a, b, c, .. } => {
                let a = self.reg_pair(q, *a)?;
                // a fused instruction's unused operands repeat `a`
                let b = self.reg_pair(q, *b)?;
                let c = self.reg_pair(q, *c)?;
                self.fused(*kind, a, b, c)
            }
            _ => return Ok(false),
        };
        let dst = ins
            .dst()
            .ok_or_else(|| err("an arithmetic instruction without a destination"))?;
        self.set_pair(q, dst, v)?;
        Ok(true)
    }

    /// `dst = u(a)` for `exp`, `sin` or `cos` (`paired`: a `sin` or `cos` whose argument
    /// also gets the other one): with [`LANES`] points one call of the lane function for
    /// all of them, with one point the one-point function (bitwise the same per point).
    fn transcendental(&mut self, u: Un, paired: bool, dst: u32, a: u32) -> Result<(), JitError> {
        if self.width == 1 {
            self.lane = 0;
            let a = self.reg(a)?;
            let v = if u != Un::Exp && (paired || self.sincos.contains_key(&a)) {
                // a `sin`/`cos` pair (computed already, or now for both): bitwise the
                // separate functions' results
                let (sin, cos) = self.sin_cos(a);
                if u == Un::Sin { sin } else { cos }
            } else {
                self.pure(Key::Un(u, a), |l| {
                    l.call(l.sigs.f_f, u.c_fn() as usize, &[a])
                })
            };
            return self.set(dst, v);
        }
        let args = self.lane_args(a)?;
        let results = match self.lane_lookup(u, &args) {
            Some(r) => r,
            None => {
                let f = lane_fn(u, paired);
                let r = self.lane_call(f, &args);
                self.lane_record(u, f, args, r)
            }
        };
        self.set_pairs(dst, results)
    }

    /// The arguments of a lane-function call on register `a` of the current body's
    /// [`LANES`] points.
    fn lane_args(&mut self, a: u32) -> Result<LaneArgs, JitError> {
        let mut args: LaneArgs = [self.nan; LANES];
        if vmath::PAIR_ARGUMENTS {
            // the pairs as they are (packed once where a pair is two scalars): no lane
            // extracted into an argument register of its own
            for (q, arg) in args.iter_mut().take(PAIRS).enumerate() {
                *arg = self.reg_pair(q, a)?;
            }
        } else {
            for (lane, arg) in args.iter_mut().enumerate() {
                self.lane = lane;
                *arg = self.reg(a)?;
            }
        }
        Ok(args)
    }

    /// The results of `u` on `args` where the current loop body has them already: from
    /// a call of `u` on them, or of [`LaneFn::SinCos`] (bitwise the separate functions'
    /// results).
    fn lane_lookup(&mut self, u: Un, args: &LaneArgs) -> Option<[Value; PAIRS]> {
        if let Some(&r) = self.lane_memo.get(&(u, *args)) {
            return Some(r);
        }
        match self.sincos_lanes.get(args) {
            Some(&(sin, cos)) if u != Un::Exp => {
                let r = if u == Un::Sin { sin } else { cos };
                self.lane_memo.insert((u, *args), r);
                Some(r)
            }
            _ => None,
        }
    }

    /// Records the results `r` of a call of `f` (for `u`) on `args` in the current loop
    /// body's memos; returns those of `u`.
    fn lane_record(
        &mut self,
        u: Un,
        f: LaneFn,
        args: LaneArgs,
        (first, second): LaneResults,
    ) -> [Value; PAIRS] {
        let results = if f == LaneFn::SinCos {
            self.sincos_lanes.insert(args, (first, second));
            if u == Un::Cos { second } else { first }
        } else {
            first
        };
        self.lane_memo.insert((u, args), results);
        results
    }

    /// One call of `f`'s [`LANES`]-point entry point on `args`: its results per lane pair
    /// (the second output's too for [`LaneFn::SinCos`]).
    fn lane_call(&mut self, f: LaneFn, args: &LaneArgs) -> LaneResults {
        // a slot of its own per call, 16-byte aligned (the results are read as
        // `F64X2` pairs), so that no later call of the body overwrites them
        let size = std::mem::size_of::<vmath::Slot>() as u32;
        let at = self.cache_line_slot(size);
        let callee = self.fn_addr(f.address());
        let used = if vmath::PAIR_ARGUMENTS { PAIRS } else { LANES };
        let mut call_args = args[..used].to_vec();
        call_args.push(at);
        let call = self.b.ins().call_indirect(self.p_v, callee, &call_args);
        // the results as one `F64X2` per lane pair, at immediate offsets from the
        // slot address the call returns: pure loads ([`Lower::pure_mem`]) of the
        // call's result, so each is placed at its first use, after the call and
        // never hoisted (where they were loaded right after the call, each was
        // spilled at once and reloaded at its use when another call came between)
        let at = self.b.inst_results(call)[0];
        self.lane_results(f, at, 0, LANES * 8)
    }

    /// The address of a new stack slot of `size` bytes aligned to 64 (a cache line): the
    /// frame is 16-aligned, so the slot is `size + 48` bytes and its address rounded up.
    fn cache_line_slot(&mut self, size: u32) -> Value {
        let data = ir::StackSlotData::new(ir::StackSlotKind::ExplicitSlot, size + 48, 4);
        let slot = self.b.create_sized_stack_slot(data);
        let at = self.b.ins().stack_addr(types::I64, slot, 0);
        let at = self.b.ins().iadd_imm(at, 63);
        self.b.ins().band_imm(at, -64)
    }

    /// The results of a call of `f` as `F64X2` loads from the slot at `at`: the first
    /// output's pairs at `first..`, the second one's at `first + second..`
    /// ([`LaneFn::SinCos`]; the other functions' unused, NaN).
    fn lane_results(&mut self, f: LaneFn, at: Value, first: usize, second: usize) -> LaneResults {
        let flags = self.pure_mem;
        let mut out = ([self.nan; PAIRS], [self.nan; PAIRS]);
        for q in 0..PAIRS {
            let off = (first + q * 16) as i32;
            out.0[q] = self.b.ins().load(types::F64X2, flags, at, off);
            if f == LaneFn::SinCos {
                let off = (first + second + q * 16) as i32;
                out.1[q] = self.b.ins().load(types::F64X2, flags, at, off);
            }
        }
        out
    }

    /// One call of `f`'s 16-point entry point ([`LaneFn::address_two_blocks`]) on the
    /// arguments of both blocks (`args[h]`: block `h`'s); per block, its results as
    /// [`Lower::lane_call`]'s.
    fn lane_call_two_blocks(&mut self, f: LaneFn, args: &[LaneArgs; 2]) -> [LaneResults; 2] {
        let Some(address) = f.address_two_blocks() else {
            return [self.lane_call(f, &args[0]), self.lane_call(f, &args[1])];
        };
        let sig = match self.p_v2 {
            Some(sig) => sig,
            None => {
                let mut s = Signature::new(CallConv::SystemV);
                s.params.extend([AbiParam::new(types::F64X2); 2 * PAIRS]);
                s.params.push(AbiParam::new(types::I64));
                s.returns.push(AbiParam::new(types::I64));
                let sig = self.b.import_signature(s);
                self.p_v2 = Some(sig);
                sig
            }
        };
        let size = (4 * LANES * 8) as u32;
        let at = self.cache_line_slot(size);
        let callee = self.fn_addr(address);
        let mut call_args = args[0][..PAIRS].to_vec();
        call_args.extend_from_slice(&args[1][..PAIRS]);
        call_args.push(at);
        let call = self.b.ins().call_indirect(sig, callee, &call_args);
        self.two_block_calls += 1;
        // block `h`'s points at lanes `h * LANES..` of each output of 2 * LANES
        let at = self.b.inst_results(call)[0];
        let second = 2 * LANES * 8;
        [
            self.lane_results(f, at, 0, second),
            self.lane_results(f, at, LANES * 8, second),
        ]
    }

    /// Register `dst` of every lane pair.
    fn set_pairs(&mut self, dst: u32, values: [Value; PAIRS]) -> Result<(), JitError> {
        for (q, v) in values.into_iter().enumerate() {
            self.set_pair(q, dst, v)?;
        }
        Ok(())
    }

    /// The value of `key`: computed by `emit` the first time in the current loop body.
    fn pure(&mut self, key: Key, emit: impl FnOnce(&mut Self) -> Value) -> Value {
        if let Some(&v) = self.memo.get(&key) {
            return v;
        }
        let v = emit(self);
        self.memo.insert(key, v);
        v
    }

    /// The constant `c`.
    fn fconst(&mut self, c: f64) -> Value {
        if let Some(&v) = self.hoisted.get(&c.to_bits()) {
            return v;
        }
        self.pure(Key::F64(c.to_bits()), |l| l.b.ins().f64const(c))
    }

    /// Defines the members' constant operands and the sign mask in the current block
    /// (the entry block, before the loops), so that the loop bodies use them without
    /// materializing them again.
    fn hoist_constants(&mut self) {
        self.sign_mask = self.b.ins().f64const(-0.0);
        let mut constants: Vec<f64> = Vec::new();
        for &(p, _) in self.members {
            constants.extend(p.consts.iter().map(|&(_, c)| c));
            for ins in &p.ins {
                match ins {
                    Ins::Fill { c, .. } | Ins::Value { src: Src::C(c) } => constants.push(*c),
                    Ins::Bin { a, b, .. } => {
                        for src in [a, b] {
                            if let Src::C(c) = src {
                                constants.push(*c);
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        for c in constants {
            if !self.hoisted.contains_key(&c.to_bits()) {
                let v = self.b.ins().f64const(c);
                self.hoisted.insert(c.to_bits(), v);
            }
        }
    }

    /// `-a` (flips the sign bit, as `fneg`; per lane of an `F64X2`).
    fn negate(&mut self, a: Value) -> Value {
        let mask = self.sign_mask;
        let mask = if self.b.func.dfg.value_type(a) == types::F64X2 {
            self.splat(mask)
        } else {
            mask
        };
        self.b.ins().bxor(a, mask)
    }

    /// Instruction `at` of the program for the current lane (not `exp`, `sin`, `cos`:
    /// [`Lower::transcendental`]).
    fn instruction(&mut self, at: usize) -> Result<(), JitError> {
        let p = self.p;
        let ins = p
            .ins
            .get(at)
            .ok_or_else(|| err("instruction out of range"))?;
        match ins {
            Ins::X { dst, idx, off } => {
                let v = self.gather(self.x, self.x_len, *idx, *off)?;
                self.set(*dst, v)?;
            }
            Ins::P { dst, idx, off } => {
                let v = self.gather(self.theta, self.theta_len, *idx, *off)?;
                self.set(*dst, v)?;
            }
            Ins::D { dst, col } => {
                let base = *self
                    .real_cols
                    .get(col)
                    .ok_or_else(|| err("unknown data column"))?;
                let v = self.load_row(base, types::F64);
                self.set(*dst, v)?;
            }
            Ins::I { dst, idx, off } => {
                let i = self.isrc(*idx)?;
                let off = *off;
                let v = self.pure(Key::ToF64(i, off), |l| {
                    let i = l.b.ins().iadd_imm(i, off);
                    l.b.ins().fcvt_from_sint(types::F64, i)
                });
                self.set(*dst, v)?;
            }
            Ins::Fill { dst, c } => {
                let v = self.fconst(*c);
                self.set(*dst, v)?;
            }
            Ins::Un { op, dst, a } => {
                let a = self.reg(*a)?;
                let v = self.unary(op, a);
                self.set(*dst, v)?;
            }
            Ins::Bin { op, dst, a, b } => {
                let a = self.src(*a)?;
                let b = self.src(*b)?;
                let v = self.binary(op, a, b);
                self.set(*dst, v)?;
            }
            Ins::Fused { kind, dst, a, b, c } => {
                let (a, b, c) = (self.reg(*a)?, self.reg(*b)?, self.reg(*c)?);
                let v = self.fused(*kind, a, b, c);
                self.set(*dst, v)?;
            }
            Ins::Value { src } => {
                let v = self.src(*src)?;
                let at = self.row_addr(self.values, 8);
                self.b.ins().store(self.mem, v, at, 0);
            }
        }
        Ok(())
    }

    /// A fused superinstruction of `kind` on `a`, `b`, `c` (scalars, or `F64X2`s).
    fn fused(&mut self, kind: Fk, a: Value, b: Value, c: Value) -> Value {
        match kind {
            Fk::BB(f, g, left) => {
                let t = self.ar(f, a, b);
                if left {
                    self.ar(g, t, c)
                } else {
                    self.ar(g, c, t)
                }
            }
            Fk::UB(u, g, left) => {
                let t = self.u1(u, a);
                if left {
                    self.ar(g, t, c)
                } else {
                    self.ar(g, c, t)
                }
            }
            Fk::BU(f, u) => {
                let t = self.ar(f, a, b);
                self.u1(u, t)
            }
            Fk::UU(u1, u2) => {
                let t = self.u1(u1, a);
                self.u1(u2, t)
            }
        }
    }

    /// Register `r` of the current lane is the scalar `v`.
    fn set(&mut self, r: u32, v: Value) -> Result<(), JitError> {
        let nregs = self.p.nregs;
        if r as usize >= nregs {
            return Err(err("register out of range"));
        }
        let (lane, r) = (self.lane, r as usize);
        let pair_at = (lane / 2) * nregs + r;
        if self.vregs.get(pair_at).copied().flatten().is_some() {
            // the other lane keeps its value, now as a scalar of its own
            let other = lane ^ 1;
            if self
                .regs
                .get(other * nregs + r)
                .copied()
                .flatten()
                .is_none()
            {
                self.lane = other;
                let v = self.reg(r as u32);
                self.lane = lane;
                v?;
            }
            self.vregs[pair_at] = None;
        }
        *self
            .regs
            .get_mut(lane * nregs + r)
            .ok_or_else(|| err("register out of range"))? = Some(v);
        Ok(())
    }

    /// Register `r` of the current lane as a scalar (a lane of its pair's vector when it
    /// was computed as one).
    fn reg(&mut self, r: u32) -> Result<Value, JitError> {
        let nregs = self.p.nregs;
        if r as usize >= nregs {
            return Err(err("register out of range"));
        }
        let (lane, r) = (self.lane, r as usize);
        if let Some(v) = self.regs.get(lane * nregs + r).copied().flatten() {
            return Ok(v);
        }
        let vector = self
            .vregs
            .get((lane / 2) * nregs + r)
            .copied()
            .flatten()
            .ok_or_else(|| err("read of an unset register"))?;
        let high = lane % 2 == 1;
        let v = self.pure(Key::Extract(vector, high), |l| {
            l.b.ins().extractlane(vector, u8::from(high))
        });
        self.regs[lane * nregs + r] = Some(v);
        Ok(v)
    }

    /// Register `r` of lane pair `q` is the `F64X2` `v`.
    fn set_pair(&mut self, q: usize, r: u32, v: Value) -> Result<(), JitError> {
        let nregs = self.p.nregs;
        if r as usize >= nregs {
            return Err(err("register out of range"));
        }
        let r = r as usize;
        self.vregs[q * nregs + r] = Some(v);
        self.regs[2 * q * nregs + r] = None;
        self.regs[(2 * q + 1) * nregs + r] = None;
        Ok(())
    }

    /// Register `r` of lane pair `q` as an `F64X2` (its two scalars packed, or a splat
    /// when both are the same value, when it was not computed as a vector).
    fn reg_pair(&mut self, q: usize, r: u32) -> Result<Value, JitError> {
        let nregs = self.p.nregs;
        if r as usize >= nregs {
            return Err(err("register out of range"));
        }
        if let Some(v) = self.vregs[q * nregs + r as usize] {
            return Ok(v);
        }
        let lane = self.lane;
        self.lane = 2 * q;
        let low = self.reg(r);
        self.lane = 2 * q + 1;
        let high = self.reg(r);
        self.lane = lane;
        let v = self.pack(low?, high?);
        self.vregs[q * nregs + r as usize] = Some(v);
        Ok(v)
    }

    /// The `F64X2` of the scalars `low`, `high`.
    fn pack(&mut self, low: Value, high: Value) -> Value {
        if low == high {
            return self.splat(low);
        }
        self.pure(Key::Pack(low, high), |l| {
            let v = l.b.ins().scalar_to_vector(types::F64X2, low);
            l.b.ins().insertlane(v, high, 1)
        })
    }

    /// The `F64X2` with both lanes the scalar `v`.
    fn splat(&mut self, v: Value) -> Value {
        self.pure(Key::Splat(v), |l| l.b.ins().splat(types::F64X2, v))
    }

    /// Operand `s` for lane pair `q` as an `F64X2`.
    fn src_pair(&mut self, q: usize, s: Src<f64>) -> Result<Value, JitError> {
        match s {
            Src::R(r) => self.reg_pair(q, r),
            Src::C(c) => {
                let c = self.fconst(c);
                Ok(self.splat(c))
            }
        }
    }

    /// The constant `c` with the type of `like` (an `F64` or `F64X2` splat).
    fn fconst_like(&mut self, like: Value, c: f64) -> Value {
        let v = self.fconst(c);
        if self.b.func.dfg.value_type(like) == types::F64X2 {
            self.splat(v)
        } else {
            v
        }
    }

    fn src(&mut self, s: Src<f64>) -> Result<Value, JitError> {
        match s {
            Src::R(r) => self.reg(r),
            Src::C(c) => Ok(self.fconst(c)),
        }
    }

    fn isrc(&mut self, s: ISrc) -> Result<Value, JitError> {
        match s {
            ISrc::C(c) => Ok(self.pure(Key::I64(c), |l| l.b.ins().iconst(types::I64, c))),
            ISrc::R(r) if (r as usize) < self.p.niregs => self
                .iregs
                .get(self.lane * self.p.niregs + r as usize)
                .copied()
                .flatten()
                .ok_or_else(|| err("read of an unset integer register")),
            ISrc::R(_) => Err(err("integer register out of range")),
            ISrc::F(c) => {
                if let Some(&v) = self.int_loads.get(&(c, self.lane)) {
                    return Ok(v);
                }
                let base = *self
                    .int_cols
                    .get(&c)
                    .ok_or_else(|| err("unknown integer column"))?;
                let v = self.load_row(base, types::I64);
                self.int_loads.insert((c, self.lane), v);
                Ok(v)
            }
        }
    }

    /// `base[k]` (a data column at the current lane's point).
    fn load_row(&mut self, base: Value, ty: ir::Type) -> Value {
        let (k, k0, lane) = (self.ks[self.lane], self.ks[0], self.lane);
        self.pure(Key::Load(base, k, ty == types::I64), |l| {
            let at = l.lane_addr(base, k0, lane, 8);
            l.b.ins().load(ty, l.pure_mem, at, 0)
        })
    }

    /// `base + (k - first) * stride` (an output row of the current lane's point).
    fn row_addr(&mut self, base: Value, stride: i64) -> Value {
        let (rel0, lane) = (self.rels[0], self.lane);
        self.lane_addr(base, rel0, lane, stride)
    }

    /// `base + (k0 + lane) * stride` for lane `lane` of the body whose first point is
    /// `k0` (its `k`, or `k - first` for rows counted from the call's first point): the
    /// lanes share one product and differ by an immediate, which the loads and stores
    /// fold into their addressing (no per-lane `k + lane` and product).
    fn lane_addr(&mut self, base: Value, k0: Value, lane: usize, stride: i64) -> Value {
        let off = self.b.ins().imul_imm(k0, stride);
        let row = self.b.ins().iadd(base, off);
        match lane as i64 * stride {
            0 => row,
            d => self.b.ins().iadd_imm(row, d),
        }
    }

    /// `src[idx + off]`, NaN when the position is outside `0..len`; with
    /// [`JitInput::unchecked_gathers`], positions from a data column or a constant are
    /// read without that check (the caller guarantees they are inside).
    fn gather(&mut self, src: Value, len: Value, idx: ISrc, off: i64) -> Result<Value, JitError> {
        let i = self.isrc(idx)?;
        let byte_off = off.checked_mul(8).and_then(|b| i32::try_from(b).ok());
        if let (true, ISrc::F(_) | ISrc::C(_), Some(byte_off)) =
            (self.unchecked_gathers, idx, byte_off)
        {
            // a constant position is loop-invariant: a pure load of it could be hoisted
            // before the loop, where no point guarantees it is inside
            let flags = match idx {
                ISrc::F(_) => self.pure_mem,
                _ => self.mem,
            };
            return Ok(self.pure(Key::Gather(src, i, off), |l| {
                let byte = l.b.ins().ishl_imm(i, 3);
                let at = l.b.ins().iadd(src, byte);
                l.b.ins().load(types::F64, flags, at, byte_off)
            }));
        }
        // the checked address is always valid (`nan` outside)
        Ok(self.pure(Key::Gather(src, i, off), |l| {
            let i = l.b.ins().iadd_imm(i, off);
            let inside = l.b.ins().icmp(IntCC::UnsignedLessThan, i, len);
            let byte = l.b.ins().ishl_imm(i, 3);
            let at = l.b.ins().iadd(src, byte);
            let at = l.b.ins().select(inside, at, l.nan);
            l.b.ins().load(types::F64, l.pure_mem, at, 0)
        }))
    }

    /// The integer columns whose unchecked gathers the counting copy of the vector loops
    /// reads as lane pairs ([`Lower::counting`]): those (below 64) at which a member
    /// reads `x` or `θ` with [`JitInput::unchecked_gathers`], at an offset whose byte
    /// offsets for every lane fit an `i32`; 0 where there are none (no counting copy).
    fn counting_mask(&self) -> u64 {
        if !self.unchecked_gathers {
            return 0;
        }
        let mut mask = 0u64;
        for (p, _) in self.members {
            for ins in &p.ins {
                if let Ins::X { idx, off, .. } | Ins::P { idx, off, .. } = *ins {
                    if let (ISrc::F(c @ 0..64), Some(_)) = (idx, lane_pair_offset(off, LANES - 2)) {
                        mask |= 1 << c;
                    }
                }
            }
        }
        mask
    }

    /// In the counting copy of the vector loops, `src[col[k] + off]` for both points of
    /// lane pair `q` as one `F64X2` load at `src + 8·(col[k₀] + off + 2q)` (`k₀` the
    /// block's first point: the column counts up by one, so lane `l`'s position is
    /// `col[k₀] + l`, exactly the position the scalar gathers read); `None` elsewhere.
    fn pair_gather(
        &mut self,
        src: Value,
        idx: ISrc,
        off: i64,
        q: usize,
    ) -> Result<Option<Value>, JitError> {
        let c = match idx {
            ISrc::F(c) if c < 64 && self.counting & (1 << c) != 0 => c,
            _ => return Ok(None),
        };
        let Some(byte_off) = lane_pair_offset(off, 2 * q) else {
            return Ok(None);
        };
        let lane = self.lane;
        self.lane = 0;
        let i = self.isrc(ISrc::F(c));
        self.lane = lane;
        let i = i?;
        let flags = self.pair_mem;
        Ok(Some(self.pure(
            Key::PairGather(src, i, off + 2 * q as i64),
            |l| {
                let byte = l.b.ins().ishl_imm(i, 3);
                let at = l.b.ins().iadd(src, byte);
                l.b.ins().load(types::F64X2, flags, at, byte_off)
            },
        )))
    }

    fn ar(&mut self, op: Ar, a: Value, b: Value) -> Value {
        self.pure(Key::Ar(op, a, b), |l| match op {
            Ar::Add => l.b.ins().fadd(a, b),
            Ar::Sub => l.b.ins().fsub(a, b),
            Ar::Mul => l.b.ins().fmul(a, b),
            Ar::Div => l.b.ins().fdiv(a, b),
        })
    }

    fn u1(&mut self, op: U1, a: Value) -> Value {
        self.pure(Key::U1(op, a), |l| match op {
            U1::Abs2 => l.b.ins().fmul(a, a),
            U1::Neg => l.negate(a),
        })
    }

    fn fn_addr(&mut self, addr: usize) -> Value {
        self.b.ins().iconst(types::I64, addr as i64)
    }

    fn call(&mut self, sig: SigRef, addr: usize, args: &[Value]) -> Value {
        let callee = self.fn_addr(addr);
        let call = self.b.ins().call_indirect(sig, callee, args);
        self.b.inst_results(call)[0]
    }

    /// `a^k` inline: the products of `f64::powi`'s runtime routine (`__powidf2`: square
    /// and multiply over the bits of `|k|` from the lowest, then `1/r` for `k < 0`), in
    /// the same order, so bit-identical to it without the call.
    fn powi(&mut self, a: Value, k: i32) -> Value {
        let mut bits = k.unsigned_abs();
        let mut square = a;
        let mut product: Option<Value> = None;
        loop {
            if bits & 1 != 0 {
                product = Some(match product {
                    // the routine's `1 * square` is `square` exactly
                    None => square,
                    Some(p) => self.b.ins().fmul(p, square),
                });
            }
            bits >>= 1;
            if bits == 0 {
                break;
            }
            square = self.b.ins().fmul(square, square);
        }
        let r = match product {
            Some(p) => p,
            None => self.fconst_like(a, 1.0),
        };
        if k < 0 {
            let one = self.fconst_like(a, 1.0);
            self.b.ins().fdiv(one, r)
        } else {
            r
        }
    }

    /// `(sin a, cos a)` from one [`call_sincos`] per argument.
    fn sin_cos(&mut self, a: Value) -> (Value, Value) {
        if let Some(&pair) = self.sincos.get(&a) {
            return pair;
        }
        let slot = match self.sincos_slot {
            Some(slot) => slot,
            None => {
                let data = ir::StackSlotData::new(ir::StackSlotKind::ExplicitSlot, 16, 3);
                let slot = self.b.create_sized_stack_slot(data);
                self.sincos_slot = Some(slot);
                slot
            }
        };
        let at = self.b.ins().stack_addr(types::I64, slot, 0);
        let callee = self.fn_addr(call_sincos as *const () as usize);
        self.b.ins().call_indirect(self.sigs.fp_v, callee, &[a, at]);
        let sin = self.b.ins().stack_load(types::F64, slot, 0);
        let cos = self.b.ins().stack_load(types::F64, slot, 8);
        self.sincos.insert(a, (sin, cos));
        (sin, cos)
    }

    fn call_ii(&mut self, f: extern "C" fn(i64, i64) -> i64, a: Value, b: Value) -> Value {
        self.call(self.sigs.ii_i, f as usize, &[a, b])
    }

    fn call_ff(&mut self, f: extern "C" fn(f64, f64) -> f64, a: Value, b: Value) -> Value {
        self.call(self.sigs.ff_f, f as usize, &[a, b])
    }

    /// `op(a)`, computed once per loop body for the built-in functions and powers (user
    /// functions are called every time).
    fn unary(&mut self, op: &UnOp, a: Value) -> Value {
        let key = match op {
            UnOp::B(u) => Key::Un(*u, a),
            UnOp::Powi(k) => Key::Powi(*k, a),
            UnOp::Powf(pw) => Key::Powf(pw.to_bits(), a),
            UnOp::User(..) => return self.unary_raw(op, a),
        };
        self.pure(key, |l| l.unary_raw(op, a))
    }

    /// `op(a)`, computed once per loop body for the built-in functions (user functions are
    /// called every time).
    fn binary(&mut self, op: &BinOp, a: Value, b: Value) -> Value {
        match op {
            BinOp::B(f) => self.pure(Key::Bin(*f, a, b), |l| l.binary_raw(op, a, b)),
            BinOp::User(..) => self.binary_raw(op, a, b),
        }
    }

    fn unary_raw(&mut self, op: &UnOp, a: Value) -> Value {
        match op {
            UnOp::B(u) => match u {
                Un::Neg => self.negate(a),
                Un::Abs => self.b.ins().fabs(a),
                Un::Abs2 => self.b.ins().fmul(a, a),
                Un::Sqrt => self.b.ins().sqrt(a),
                Un::Inv => {
                    let one = self.fconst_like(a, 1.0);
                    self.b.ins().fdiv(one, a)
                }
                Un::Deg2rad | Un::Rad2deg => {
                    // `v * constant` exactly as `Un::eval` writes it
                    let c = self.fconst_like(a, u.eval(1.0f64));
                    self.b.ins().fmul(a, c)
                }
                _ => self.call(self.sigs.f_f, u.c_fn() as usize, &[a]),
            },
            UnOp::Powi(k) => self.powi(a, *k),
            UnOp::Powf(pw) => {
                let pw = self.b.ins().f64const(*pw);
                self.call_ff(call_powf, a, pw)
            }
            UnOp::User(f, order) => {
                let ctx = Arc::as_ptr(&f.0) as usize;
                self.keep.unary.push(f.clone());
                let ctx = self.fn_addr(ctx);
                let order = self.b.ins().iconst(types::I32, i64::from(*order));
                self.call(
                    self.sigs.pif_f,
                    call_user_unary as *const () as usize,
                    &[ctx, order, a],
                )
            }
        }
    }

    fn binary_raw(&mut self, op: &BinOp, a: Value, b: Value) -> Value {
        match op {
            BinOp::B(op) => match op {
                Bin::Add => self.b.ins().fadd(a, b),
                Bin::Sub => self.b.ins().fsub(a, b),
                Bin::Mul => self.b.ins().fmul(a, b),
                Bin::Div => self.b.ins().fdiv(a, b),
                Bin::Pow => self.call_ff(call_pow, a, b),
                Bin::Atan2 => self.call_ff(call_atan2, a, b),
                Bin::Hypot => self.call_ff(call_hypot, a, b),
                Bin::Max | Bin::Min => {
                    // `a` where `a >= b` (`a <= b`) or `b` is NaN, else `b`
                    let cc = if *op == Bin::Max {
                        FloatCC::GreaterThanOrEqual
                    } else {
                        FloatCC::LessThanOrEqual
                    };
                    let keep_a = self.b.ins().fcmp(cc, a, b);
                    let b_nan = self.b.ins().fcmp(FloatCC::Unordered, b, b);
                    let pick_a = self.b.ins().bor(keep_a, b_nan);
                    self.b.ins().select(pick_a, a, b)
                }
                Bin::Ge | Bin::Gt => {
                    let cc = if *op == Bin::Ge {
                        FloatCC::GreaterThanOrEqual
                    } else {
                        FloatCC::GreaterThan
                    };
                    let c = self.b.ins().fcmp(cc, a, b);
                    let one = self.b.ins().f64const(1.0);
                    let zero = self.b.ins().f64const(0.0);
                    self.b.ins().select(c, one, zero)
                }
            },
            BinOp::User(f, part) => {
                let ctx = Arc::as_ptr(&f.0) as usize;
                self.keep.binary.push(f.clone());
                let ctx = self.fn_addr(ctx);
                let part = self.b.ins().iconst(types::I32, *part as i64);
                self.call(
                    self.sigs.piff_f,
                    call_user_binary as *const () as usize,
                    &[ctx, part, a, b],
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{BLOCKS, LANES, WIDE_MAX_INSTRUCTIONS};
    use crate::{Evaluator, Expr, Index, Pattern, SecondOrder, VarRef};

    fn var(k: i64) -> Expr {
        let f0 = Index::field(0);
        Expr::var(VarRef::new(0, vec![f0.clone()], f0 + k))
    }

    /// Programs that call a lane function get the loop of `BLOCKS * LANES` points per
    /// iteration (every program of such a pattern: its derivatives call `sin`/`cos` and
    /// `exp` too), programs without one or longer than `WIDE_MAX_INSTRUCTIONS` do not. The
    /// wide programs that store their outputs (a constraint pattern's) have no [`LANES`]-point
    /// loop beside the wide one (`BLOCKS + 1` copies of the body, not `BLOCKS + 2`). The
    /// programs that read `x` at column positions unchecked (a constraint pattern's, an
    /// objective's gradient scatters, not its sum) have the vector loops twice (the
    /// counting copy).
    #[test]
    fn lane_function_bodies_run_blocks_per_iteration() {
        let (a, b) = (var(0), var(1));
        let compile = |e: &Expr, objective: bool| {
            let p = if objective {
                Pattern::<f64>::compile_objective_for(e, SecondOrder::default(), Evaluator::Jit)
            } else {
                Pattern::<f64>::compile_for(e, SecondOrder::default(), Evaluator::Jit)
            };
            let (widths, bodies, _) = p.unwrap().jit_loop_shapes();
            (widths, bodies)
        };
        let calls = (&a - &b).sin() * (&a + &b).sin() - &a * (&a - &b).exp();
        for objective in [false, true] {
            let (widths, bodies) = compile(&calls, objective);
            assert!(widths.len() >= 4, "{widths:?}");
            assert!(widths.iter().all(|&w| w == BLOCKS * LANES), "{widths:?}");
            if objective {
                // the objective's stored programs check their positions (one copy of the
                // wide loop); its sum and gradient scatters keep the `LANES`-point loop,
                // the scatters twice (with the counting copy)
                assert!(bodies.contains(&(BLOCKS + 1)), "{bodies:?}");
                assert!(bodies.contains(&(BLOCKS + 2)), "{bodies:?}");
                assert!(bodies.contains(&(2 * (BLOCKS + 1) + 1)), "{bodies:?}");
                assert!(
                    bodies
                        .iter()
                        .all(|&n| n == BLOCKS + 1 || n == BLOCKS + 2 || n == 2 * (BLOCKS + 1) + 1),
                    "{bodies:?}"
                );
            } else {
                assert!(bodies.iter().all(|&n| n == 2 * BLOCKS + 1), "{bodies:?}");
            }
        }
        let plain = &a * &a * &b + 3.0 * &b;
        let (widths, bodies) = compile(&plain, true);
        assert!(widths.len() >= 4, "{widths:?}");
        assert!(widths.iter().all(|&w| w == LANES), "{widths:?}");
        assert!(bodies.iter().all(|&n| n == 2 || n == 3), "{bodies:?}");
        assert!(bodies.contains(&3), "{bodies:?}");
        // a long chain of `sin`: longer than the wide loop's limit (its value program too),
        // short enough for the JIT
        let mut long = a.clone();
        for k in 0..WIDE_MAX_INSTRUCTIONS / 2 {
            long = (long + &b * (k as f64 + 0.5)).sin();
        }
        let (widths, bodies) = compile(&long, false);
        assert!(widths.len() >= 4, "{widths:?}");
        assert!(widths.iter().all(|&w| w == LANES), "{widths:?}");
        assert!(bodies.iter().all(|&n| n == 3), "{bodies:?}");
    }

    /// Where both blocks of the wide loop call the same lane function, one call of its
    /// 16-point entry point serves both (on x86-64, `vmath::TWO_BLOCK_ENTRIES`; elsewhere
    /// none): rosenbrock's constraint calls `sin(a − b)`, `sin(a + b)` and `exp(a − b)`,
    /// its derivatives the `sin`/`cos` pairs of the same arguments and `exp(a − b)`, three
    /// calls per wide iteration in every program (in each of the two copies of the wide loop,
    /// the general and the counting one); a body with one call per block (fewer than
    /// `TWO_BLOCK_MIN_CALLS`: one call per block, as lf27 emitted it) or none has none.
    #[test]
    fn both_blocks_share_each_lane_function_call() {
        let (a, b) = (var(0), var(1));
        let calls_of = |e: &Expr| {
            let p = Pattern::<f64>::compile_for(e, SecondOrder::default(), Evaluator::Jit);
            p.unwrap().jit_loop_shapes().2
        };
        let calls = calls_of(&((&a - &b).sin() * (&a + &b).sin() - &a * (&a - &b).exp()));
        assert!(calls.len() >= 4, "{calls:?}");
        let want = if crate::vmath::TWO_BLOCK_ENTRIES {
            2 * 3
        } else {
            0
        };
        assert!(calls.iter().all(|&n| n == want), "{calls:?}");
        let plain = calls_of(&(&a * &a * &b + 3.0 * &b));
        assert!(plain.iter().all(|&n| n == 0), "{plain:?}");
        // `sin(a − b)`, its derivatives' `sin`/`cos` pair of `a − b`: one call per block
        let one = calls_of(&((&a - &b).sin() * &a));
        assert!(one.iter().all(|&n| n == 0), "{one:?}");
    }
}
