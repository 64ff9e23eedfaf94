"""The project's `njit`: numba's, except that a kernel called from another kernel is compiled
once per argument *type*, not once per constant value passed to it.

numba types a constant argument (`log_event(st, EV_TURN, side, 0, ...)`, `movement_phase(...,
True, ...)`) as a literal and, when the callee is a jitted function, compiles a separate copy
of it for every combination of constants its callers pass.  Measured on a cold start of pb-01:
`log_event` 40 copies, `random_play.choose` 17, `movement_phase` 2 (the whole vehicle and
foot movement phase twice), 37 functions and ~32 s of the ~115 s of compilation
(docs/performance.md, "Cold start").  None of the kernels needs the literal: they take the
value as an ordinary argument.  `KernelDispatcher` widens literal argument types to their
ordinary types before numba picks or compiles a specialisation; calls from Python are already
typed that way.  tests/core/test_jit.py checks it (one signature for calls with different constants).

Likewise one integer type per argument: a hex or unit index reaches a kernel as int64 from a
loop, as int32 from a table (`neighbours[h, d]`), as uint64 from a `prange` loop, and numba
compiled a copy for each (a cold start of pb-04: `hex_distance` three times, `los_pair`,
`line_chain`, `end_levels`, `_band_blocked` and `log_event` twice; ~7 s).  Every integer scalar
argument is widened to int64 (the type numba's own integer arithmetic works in); the values are
indices, counts and codes far below 2**63, so the widening never changes one.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import subprocess
import sys
import time

import llvmlite.binding as _llvm
import numba
import numpy as np
from numba.core import caching, cgutils, errors, sigutils, types
from numba.core import codegen as _codegen
from numba.core import cpu as _cpu
from numba.core import dispatcher as _dispatcher
from numba.core.imputils import lower_constant
from numba.core.registry import CPUDispatcher
from numba.core.runtime import rtsys as _rtsys
from numba.extending import intrinsic, models, register_model, typeof_impl

from simulator import refcount
from simulator.soa import BorrowedArray


def kernel_arg_type(ty):
    """The type a kernel is compiled for when another kernel passes it `ty`: no literal, and
    every integer scalar as int64."""
    ty = types.unliteral(ty)
    if isinstance(ty, types.Integer):
        return types.int64
    if isinstance(ty, BorrowedArray):
        # A struct's field passed on: the callee sees a plain array (NULL meminfo, so its
        # reference counting is a null test), and is compiled once for fields and local arrays.
        # (numba's Array.copy makes the plain array type of the same dtype, layout and flags.)
        return ty.copy()
    return ty


def _owned(result, kernel):
    """`result`, after checking that no array in it is a view of a struct's field.

    A struct's array fields are borrowed (simulator/soa.py, BorrowedArray): a kernel returning
    a whole field hands Python the field's own array, but a slice of one would come back as an
    array without an owner, pointing into memory its struct's Python object may free."""
    if isinstance(result, np.ndarray):
        if result.base is None and not result.flags.owndata:
            raise RuntimeError(f"{kernel.__name__} returned a view of a struct's array field, which nothing "
                               "keeps alive: return a copy (or the whole field)")
    elif isinstance(result, tuple):
        for item in result:
            _owned(item, kernel)
    return result


class KernelDispatcher(CPUDispatcher):
    """numba's CPU dispatcher, compiling callees for `kernel_arg_type` argument types."""

    def __call__(self, *args, **kwargs):
        # Only calls from Python come here (kernels call each other in compiled code).
        return _owned(super().__call__(*args, **kwargs), self)

    def get_call_template(self, args, kws):
        # The hook numba's typing calls when another kernel calls this one (types.Dispatcher).
        args = tuple(kernel_arg_type(a) for a in args)
        kws = {k: kernel_arg_type(v) for k, v in kws.items()}
        return super().get_call_template(args, kws)

    def compile(self, sig):
        # Under a lock shared by every process on the cache (see "Compiling on two cores").
        args, _ = sigutils.normalize_signature(sig)
        if tuple(args) in self.overloads:
            return super().compile(sig)
        with compile_lock(self):
            _DEPTH[0] += 1
            try:
                return super().compile(sig)
            finally:
                _DEPTH[0] -= 1


# How many KernelDispatcher compiles are open in this process: a kernel compiled while another
# is (>= 2) is a callee, compiled because its caller's types are being inferred.
_DEPTH = [0]


def njit(**options):
    """`numba.njit(**options)` (always with keyword options, e.g. `@njit(cache=True)`), with
    `KernelDispatcher` as the dispatcher; with NUMBA_DISABLE_JIT=1 the plain function."""

    if options.get("nogil") or options.get("parallel"):
        # The kernels count references without atomics (simulator/refcount.py): each holds the GIL.
        raise ValueError("simulator.jit.njit: nogil and parallel kernels are not supported (their reference "
                         "counts would race: simulator/refcount.py)")

    def wrap(func):
        disp = numba.njit(**options)(func)
        if type(disp) is CPUDispatcher:  # a function when the JIT is disabled
            # numba's decorators offer no public way to pick a dispatcher class short of
            # registering a new compilation target; the subclass adds no state.
            disp.__class__ = KernelDispatcher
            if _WRAPPERS_ON_DEMAND:
                disp._compiler.__class__ = _KernelCompiler
        return disp

    return wrap


# ----------------------------------------------------------------------------- indirect calls
#
# numba links every callee's compiled module into its caller's and LLVM optimises and emits
# the whole of it again, at every level of the call tree (numba.core.codegen: `finalize` links
# the callees' final modules, then runs the module passes over the result).  A kernel called
# from a dozen places deep in the game (the heuristic player answering a decision) was so
# compiled a dozen times over, with everything it calls.  An *indirect* kernel is called
# through its address instead: it is compiled (or loaded from numba's disk cache) once, by the
# Python that starts a game, for the argument types of that game, and its callers only hold a
# call through a pointer read from a table at run time.  What a run never uses (the debug
# checks, a heuristic nobody plays) is then never compiled at all.


class Indirect:
    """A kernel called through the address in slot `slot` of a call table (an int64 array the
    game carries), under a name unique in the project.  `args`: per argument, its numba type, or
    a name for an argument whose type is that of the value `bind` is given under that name (a
    struct of arrays: the same object reaches every call site); integer scalars are widened as
    `kernel_arg_type`.  `returns`: the return type (numba.types).  Call sites write
    `call(table, THE_INDIRECT, *args)`."""

    def __init__(self, name: str, slot: int, kernel, returns, args: tuple):
        known = INDIRECT.get(name)
        if known is not None and known.slot != slot:
            raise ValueError(f"indirect kernel {name!r} registered twice (slots {known.slot} and {slot})")
        self.name, self.slot, self.kernel, self.returns, self.args = name, slot, kernel, returns, tuple(args)
        INDIRECT[name] = self
        _ADDRESS_ONLY.add(getattr(kernel, "py_func", kernel))

    def signature(self, values: dict[str, object]) -> tuple:
        """The argument types: the declared ones, and `typeof` of the named values."""
        sig = []
        for ty in self.args:
            if isinstance(ty, str):
                if ty not in values:
                    raise TypeError(f"{self.name}: no value for argument {ty!r}")
                ty = type_of(values[ty])
            sig.append(ty)
        return tuple(sig)

    def bind(self, table: np.ndarray, **values) -> None:
        """Compiles (or loads from the disk cache) the kernel for the types of `values` (see
        `signature`; values it does not name are ignored) and writes its address into
        `table[slot]`."""
        if numba.config.DISABLE_JIT:
            _PYTHON_KERNELS[id(self.kernel)] = self.kernel
            table[self.slot] = id(self.kernel)
            return
        sig = self.signature(values)
        cres = self.kernel.overloads.get(sig)
        if cres is None:
            self.kernel.compile(sig)
            cres = self.kernel.overloads[sig]
        if cres.signature.return_type != self.returns:
            raise TypeError(f"{self.name} returns {cres.signature.return_type}, its call sites expect {self.returns}")
        address = cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name)
        if not address:
            raise RuntimeError(f"{self.name}: no compiled function {cres.fndesc.llvm_func_name}")
        table[self.slot] = address

    def __repr__(self):
        return f"Indirect({self.name!r}, slot {self.slot})"


def type_of(value):
    """`numba.typeof(value)`, except that a struct of arrays (simulator/soa.py) is not built for it:
    building one compiles `soa._make` for its type (~0.14 CPU-s each, eight struct types in a
    game), which `bind_all` gives to `compile_together` instead of compiling it here, in the one
    process, before the two-process part of a cold start begins."""
    struct_type = getattr(value, "_struct_type", None)
    if callable(struct_type) and getattr(value, "_ref", None) is None:
        return struct_type()
    return numba.typeof(value)


INDIRECT: dict[str, Indirect] = {}
_ADDRESS_ONLY: set = set()   # the Python functions of indirect kernels (see "Wrappers on demand")
_PYTHON_KERNELS: dict[int, object] = {}   # with the JIT disabled: the "addresses" are ids of functions


class IndirectType(types.Opaque):
    """numba's type of an `Indirect` used as a constant in a kernel (the call sites' `call`)."""

    def __init__(self, name: str):
        self.indirect_name = name
        super().__init__(f"Indirect({name})")


@typeof_impl.register(Indirect)
def _typeof_indirect(val, c):
    return IndirectType(val.name)


register_model(IndirectType)(models.OpaqueModel)


@lower_constant(IndirectType)
def _lower_indirect(context, builder, ty, pyval):
    return context.get_constant_null(ty)


def _call_python(table, kernel, *args):
    fn = _PYTHON_KERNELS.get(int(table[kernel.slot]))
    if fn is None:
        raise RuntimeError(f"{kernel.name}: not bound in this game's call table")
    return fn(*args)


@intrinsic
def _call(typingctx, table, kernel, *args):
    """`kernel.kernel(*args)` through the address in `table[kernel.slot]`."""
    if not isinstance(kernel, IndirectType):
        raise errors.TypingError("call(): the kernel must be an Indirect (a module constant)")
    spec = INDIRECT[kernel.indirect_name]
    if len(args) != len(spec.args):
        raise errors.TypingError(f"call({spec.name}): {len(args)} arguments, {len(spec.args)} declared")
    argtys = []
    for i, (actual, declared) in enumerate(zip(args, spec.args, strict=True)):
        actual = kernel_arg_type(actual)  # a struct's array field as a plain array
        if not isinstance(declared, str) and actual != declared and not (
                isinstance(declared, types.Integer) and isinstance(actual, types.Boolean)):
            raise errors.TypingError(f"call({spec.name}): argument {i} is {actual}, declared {declared}")
        argtys.append(actual if isinstance(declared, str) else declared)
    argtys = tuple(argtys)
    returns = spec.returns
    sig = returns(table, kernel, types.StarArgTuple(args))

    def codegen(context, builder, signature, llargs):
        given = signature.args[2].types
        values = [context.cast(builder, v, given[i], argtys[i])
                  for i, v in enumerate(cgutils.unpack_tuple(builder, llargs[2]))]
        ary = context.make_array(signature.args[0])(context, builder, llargs[0])
        address = builder.load(builder.gep(ary.data, [context.get_constant(types.intp, spec.slot)]))
        with builder.if_then(cgutils.is_null(builder, address), likely=False):
            context.call_conv.return_user_exc(builder, RuntimeError,
                                              (f"{spec.name}: not bound in this game's call table",))
        fnty = context.call_conv.get_function_type(returns, argtys)
        callee = builder.inttoptr(address, fnty.as_pointer())
        status, result = context.call_conv.call_function(builder, callee, returns, argtys, values)
        with cgutils.if_unlikely(builder, status.is_error):
            context.call_conv.return_status_propagate(builder, status)
        return result

    return sig, codegen


call = _call_python if numba.config.DISABLE_JIT else _call


# ----------------------------------------------------------------------------- loading from the cache
#
# A kernel loaded from numba's disk cache comes with its machine code and with the LLVM bitcode
# of its whole module, which numba parses at once into an LLVM module and keeps, in case a kernel
# compiled later in the process links it in.  A pool worker compiles nothing (the run compiled
# before starting it), yet held those parsed modules: 33 MB of a pb-04 worker's ~360 MB
# (docs/performance.md, "Worker memory").  `_LinkOnDemandLibrary` keeps the bitcode as bytes
# and parses it only if something links against it.


class _LinkOnDemandLibrary(_codegen.JITCodeLibrary):
    """numba's JIT code library, parsing a cached library's link module only when it is linked."""

    _link_bitcode = None

    @classmethod
    def _unserialize(cls, codegen, state):
        name, kind, data = state
        if kind != "object":
            return super()._unserialize(codegen, state)
        object_code, shared_bitcode = data
        self = codegen.create_library(name)
        self.enable_object_caching()
        self._set_compiled_object(object_code)
        self._finalize_final_module()
        # The symbols it defines are read from the bitcode once (numba does the same), then the
        # parsed module is dropped.
        self._codegen._engine._load_defined_symbols(_llvm.parse_bitcode(shared_bitcode))
        self._link_bitcode = shared_bitcode
        return self

    def _optimize_final_module(self):
        # A library finalised while its caller is being compiled (a callee: _DEPTH >= 2) is linked
        # into that caller, whose module passes (numba's cheap pass, reference-count pruning, O3)
        # run over the linked code again, as they do in every kernel above it: its own run was
        # redone at each level of the call tree.  Skipped, a cold pb-04 start compiles ~9 % less
        # (docs/performance.md, round 7); its own machine code (used only when Python calls it
        # directly: tests) is then function-pass optimised only.  BALANCE_CALLEE_MODULE_PASSES=1:
        # numba's behaviour.
        if _DEPTH[0] >= 2 and os.environ.get("BALANCE_CALLEE_MODULE_PASSES", "0") != "1":
            return
        self._module_passes()

    def _module_passes(self):
        if self._nrt_library is None:
            super()._optimize_final_module()
            return
        # numba's passes (codegen.CPUCodeLibrary._optimize_final_module: a cheap pass to inline
        # as many reference counts into one function as it can, the pruning of those that
        # cancel, the full optimisation), with the counts left made inlinable in between
        # (simulator/refcount.py).
        cg = self._codegen
        mpm_cheap, mpb_cheap = cg._module_pass_manager(loop_vectorize=cg._loopvect, slp_vectorize=False,
                                                       opt=cg._opt_level, cost="cheap")
        with self._recorded_timings.record("Module passes (cheap optimization for refprune)", mpb_cheap):
            mpm_cheap.run(self._final_module, mpb_cheap)  # the pruning pass is its last
        self._link_nrt()
        mpm_full, mpb_full = cg._module_pass_manager()
        with self._recorded_timings.record("Module passes (full optimization)", mpb_full):
            mpm_full.run(self._final_module, mpb_full)

    # numba's NRT library, held back from the link before the module passes (refcount.py), and
    # whether numba's lowering gave one (then it is linked once, by `_link_nrt`)
    _nrt_library = None
    _nrt_given = False

    def add_linking_library(self, library):
        if _INLINE_NRT and _rtsys._init and library is _rtsys.library:
            library._ensure_finalized()
            self._nrt_library = library
            self._nrt_given = True
            return
        super().add_linking_library(library)

    def _link_nrt(self):
        nrt = self._nrt_library
        if nrt is None and not self._nrt_given and _INLINE_NRT and _rtsys._init \
                and refcount.needs_nrt(self._final_module, _rtsys.library):
            nrt = _rtsys.library  # (a callee's module from the cache, kept as bitcode: never lowered here)
        if nrt is not None:
            self._reload_init.update(nrt._reload_init)
            refcount.link_refcounts(self._final_module, nrt._get_module_for_linking())
            self._nrt_library = None

    def _get_module_for_linking(self):
        if self._shared_module is None and self._link_bitcode is not None:
            self._shared_module = _llvm.parse_bitcode(self._link_bitcode)
        return super()._get_module_for_linking()

    # A callee's machine code, emitted only when asked for.  numba emits every library it
    # finalises, though a callee's code runs only inside its callers (linked into their modules
    # and emitted there); its own copy is needed only if Python calls it, or an address is taken
    # (`Indirect.bind`).  A library finalised while its caller compiles is so kept as an LLVM
    # module, cached as bitcode (numba's "bitcode" kind), and emitted on first use
    # (`_LazyEntry`, `get_pointer_to_function`).  BALANCE_CALLEE_EMIT=1: numba's behaviour.
    _deferred = False

    def _finalize_final_module(self):
        # (a callee, whose module passes are skipped: its NRT functions linked before it is
        # emitted, or now; a caller links its module before its own pruning, declarations and all)
        if (_DEPTH[0] >= 2 and _DEFER_ALLOWED and getattr(self, "_compiled_object", None) is None
                and os.environ.get("BALANCE_CALLEE_EMIT", "0") != "1"):  # (not machine code from the cache)
            self._deferred = True
            self._finalized = True  # linkable; emitted by _emit
            return
        self._link_nrt()
        super()._finalize_final_module()
        _set_pending_envs(self._codegen)

    def _emit(self):
        if self._deferred:
            self._deferred = False
            self._link_nrt()
            super()._finalize_final_module()
            _set_pending_envs(self._codegen)

    def get_pointer_to_function(self, name):
        self._emit()
        return super().get_pointer_to_function(name)

    def serialize_using_object_code(self):
        if self._deferred:
            return self.serialize_using_bitcode()  # no object code was made
        return super().serialize_using_object_code()


class _LazyEntry:
    """The Python entry point of a kernel whose library is not emitted yet: emits it, makes numba's
    entry point, registers it with the dispatcher and calls it.  Also the key under which numba's
    lowering finds the kernel's compiled function for its callers (as the entry point is)."""

    __slots__ = ("context", "library", "fndesc", "env", "cfunc", "dispatcher", "sig", "__weakref__")

    def __init__(self, context, library, fndesc, env):
        self.context, self.library, self.fndesc, self.env = context, library, fndesc, env
        self.cfunc = self.dispatcher = self.sig = None

    def resolve(self):
        if self.cfunc is None:
            library = self.library
            library._emit()
            if not library._codegen._engine.is_symbol_defined(self.fndesc.llvm_cpython_wrapper_name):
                library = _wrapper_library(self.context, library, self.fndesc, self.env)
            self.cfunc = _numba_get_executable(self.context, library, self.fndesc, self.env)
            if self.dispatcher is not None:
                self.dispatcher._insert(self.sig, self.cfunc, False)
        return self.cfunc

    def __call__(self, *args, **kws):
        return self.resolve()(*args, **kws)


# numba points a kernel's environment global at its Environment (`set_env`) when it makes the
# entry point and when it loads a kernel from the cache (for every environment the kernel's
# module references).  For a module not emitted yet the global has no address: the pointer is
# set once a module defining it is emitted.
_PENDING_ENVS: dict[str, object] = {}


def _set_env(codegen, env_name, env):
    if not codegen._engine.is_symbol_defined(env_name):
        _PENDING_ENVS[env_name] = env
        return
    _numba_set_env(codegen, env_name, env)


def _set_pending_envs(codegen):
    for name in [n for n in _PENDING_ENVS if codegen._engine.is_symbol_defined(n)]:
        _numba_set_env(codegen, name, _PENDING_ENVS.pop(name))


def _get_executable(context, library, fndesc, env):
    if isinstance(library, _LinkOnDemandLibrary):
        library._ensure_finalized()  # numba finalises here, when it asks for the address
        if library._deferred or not _defines(library, fndesc.llvm_cpython_wrapper_name):
            return _LazyEntry(context, library, fndesc, env)
    return _numba_get_executable(context, library, fndesc, env)


def _defines(library, name: str) -> bool:
    """Whether `library` (finalised) defines the function `name`."""
    if library._deferred:
        try:
            return not library._final_module.get_function(name).is_declaration
        except NameError:
            return False
    return library._codegen._engine.is_symbol_defined(name)


# ----------------------------------------------------------------------------- wrappers on demand
#
# numba gives every kernel it compiles two wrappers: a CPython one (unboxes Python arguments,
# calls the kernel, boxes the result: what a call from Python runs) and a C one (for numba's
# first-class function types and `cfunc`).  Each is IR built in Python, parsed, optimised and
# emitted: 15 % of a cold pb-04 start (py-spy, docs/performance.md round 8), though the project
# takes no kernel as a first-class function and calls from Python only its entry kernels.
# `_KernelCompiler` compiles without the C wrapper, and without the CPython one for a kernel
# compiled as a callee (inside its caller's compile: `_DEPTH` >= 2) or called through its
# address (an `Indirect`); a call from Python to such a kernel (tests) finds a `_LazyEntry`,
# which builds the wrapper then in a library of its own (`_wrapper_library`) calling the
# kernel's emitted code.  The kernels' own code is the same: numba's wrappers call them
# `noinline`.  BALANCE_KERNEL_WRAPPERS=1: numba's behaviour (both wrappers for every kernel).


def _wrapper_library(context, library, fndesc, env):
    """A library holding the CPython wrapper of `fndesc`, whose code is in `library` (emitted):
    numba's `create_cpython_wrapper`, in a module that declares the kernel, resolved by the JIT
    against `library`'s symbol; its environment global (common linkage) is the kernel's."""
    from numba.core.compiler_lock import global_compiler_lock
    from numba.core.runtime import rtsys

    if not context.enable_nrt:
        # A kernel loaded from the cache comes with numba's base CPU context, whose NRT is off (a
        # compile works in a copy with the kernel's flags, `njit`'s NRT on).  Without NRT the wrapper
        # "boxes" a returned array as its `parent` object: NULL for an array the kernel made, so the
        # call returned NULL without an exception (round 8's bug, tests/core/test_jit.py).
        context = context.subtarget(enable_nrt=True)
    with global_compiler_lock:
        wrapper = context.codegen().create_library(f"{fndesc.qualname}.cpython_wrapper")
        context.create_cpython_wrapper(wrapper, fndesc, env, None)
        wrapper.add_linking_library(rtsys.library)  # as numba's lowering links every library
        wrapper.finalize()
        wrapper._emit()
    wrapper._kernel_library = library  # kept alive with the entry point
    return wrapper


class _KernelCompiler(getattr(_dispatcher, "_FunctionCompiler", object)):
    """numba's compiler of one dispatcher's specialisations, with the wrappers as above."""

    def _customize_flags(self, flags):
        flags = super()._customize_flags(flags)
        if os.environ.get("BALANCE_KERNEL_WRAPPERS", "0") != "1":
            flags.no_cfunc_wrapper = True
            if _DEPTH[0] >= 2 or self.py_func in _ADDRESS_ONLY:
                flags.no_cpython_wrapper = True
        return flags


def _load_link_modules_on_demand() -> None:
    # Only over the class this was written against (numba 0.59-0.68: the JIT codegen's library
    # class, with these private methods); otherwise numba's own behaviour stays.
    cg = _codegen.JITCPUCodegen
    if cg._library_class is _codegen.JITCodeLibrary and all(
            hasattr(_codegen.CPUCodeLibrary, m) for m in ("_unserialize", "_get_module_for_linking",
                                                            "_set_compiled_object", "enable_object_caching")):
        cg._library_class = _LinkOnDemandLibrary


_load_link_modules_on_demand()

# Reference counts inlined after numba's pruning pass (simulator/refcount.py): only over the
# versions this was written against (the pruning pass on, the pass managers numba's
# `_optimize_final_module` uses).
_INLINE_NRT = (refcount.ENABLED and _codegen.JITCPUCodegen._library_class is _LinkOnDemandLibrary
               and numba.core.config.LLVM_REFPRUNE_PASS
               and all(hasattr(_codegen.CPUCodegen, m) for m in ("_module_pass_manager", "_pass_builder")))

# Deferred emission (above) needs numba's CPU context to make entry points through
# `_get_executable`; only over the versions this was written against.

_numba_get_executable = _cpu.CPUContext.get_executable
_DEFER_ALLOWED = (_codegen.JITCPUCodegen._library_class is _LinkOnDemandLibrary and hasattr(_codegen.JITCPUCodegen, "set_env")
                  and hasattr(_dispatcher.Dispatcher, "_insert") and hasattr(_dispatcher.Dispatcher, "add_overload"))
_numba_add_overload = _dispatcher.Dispatcher.add_overload


def _add_overload(self, cres):
    entry = cres.entry_point
    if isinstance(entry, _LazyEntry):
        # Not callable from C until emitted: a call from Python misses the C-level table, asks
        # `compile`, gets the _LazyEntry, which emits the code, registers it and calls it.
        entry.dispatcher, entry.sig = self, [a._code for a in cres.signature.args]
        self.overloads[tuple(cres.signature.args)] = cres
        return
    _numba_add_overload(self, cres)


_WRAPPERS_ON_DEMAND = _DEFER_ALLOWED and hasattr(_dispatcher, "_FunctionCompiler") and hasattr(
    _dispatcher._FunctionCompiler, "_customize_flags") and hasattr(_cpu.CPUContext, "create_cpython_wrapper")
_numba_set_env = _codegen.JITCPUCodegen.set_env
if _DEFER_ALLOWED:
    _codegen.JITCPUCodegen.set_env = _set_env
    _cpu.CPUContext.get_executable = _get_executable
    _dispatcher.Dispatcher.add_overload = _add_overload


# ----------------------------------------------------------------------------- compiling on two cores
#
# A cold start compiles a dozen independent top-level kernels (the game's entry kernel and its
# indirect kernels: each is its own compile, linked into no other).  `compile_together` gives
# them to two processes: this one and a helper process (simulator/_compile_helper.py) go down
# the same jobs, each its own half of related call trees first (`related_halves`, largest first
# within each), then the other's, each compiling the next job nobody has taken, both writing
# numba's disk cache; this one then loads from the cache what the helper compiled.  Every kernel compile (also of the
# helpers they share, `reachable`, `log_event`, ...) holds a lock file in the cache folder, so
# that two processes never compile the same function at once: the second waits and then loads
# it from the cache.  The same locks make two runs started together (two terminals, pool
# workers) share their compiling instead of doing it twice.  A warm start spawns nothing.

LOCK_WAIT_S = 900.0          # after this long waiting for another process's compile, compile anyway
HELPER_ENV = "BALANCE_COMPILE_HELPER"   # "0": never start a helper process (also set in helpers)
_HELD: set[str] = set()      # lock files held by this process (a compile nested in another)


def _lock_dir() -> str | None:
    base = numba.config.CACHE_DIR or os.environ.get("NUMBA_CACHE_DIR")
    if not base:
        return None
    path = os.path.join(base, ".locks")
    try:
        os.makedirs(path, exist_ok=True)
    except OSError:
        return None
    return path


def _lock_path(disp) -> str | None:
    if isinstance(getattr(disp, "_cache", None), caching.NullCache) or _fcntl is None:
        return None  # not cached on disk: another process could not reuse its compile
    folder = _lock_dir()
    if folder is None:
        return None
    f = disp.py_func
    return os.path.join(folder, f"{f.__module__}.{f.__qualname__}.lock")


@contextlib.contextmanager
def compile_lock(disp):
    """Held while `disp` compiles: another process compiling the same function waits for it (and
    then finds it in numba's disk cache).  Re-entrant within a process.  The lock is per function
    (not per signature) because numba's index of a function's cached signatures is one file
    that each save reads and rewrites."""
    path = _lock_path(disp)
    if path is None or path in _HELD:
        yield
        return
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        yield
        return
    try:
        deadline = time.monotonic() + LOCK_WAIT_S
        while True:
            try:
                _fcntl.flock(fd, _fcntl.LOCK_EX | _fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    break  # a process stopped while compiling: compile here rather than wait for ever
                time.sleep(0.02)
        _HELD.add(path)
        try:
            yield
        finally:
            _HELD.discard(path)
    finally:
        os.close(fd)  # releases the lock


def locked_elsewhere(disp) -> bool:
    """Whether another process holds `disp`'s compile lock now."""
    path = _lock_path(disp)
    if path is None or path in _HELD or not os.path.exists(path):
        return False
    try:
        fd = os.open(path, os.O_RDWR)
    except OSError:
        return False
    try:
        _fcntl.flock(fd, _fcntl.LOCK_EX | _fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(fd)


@contextlib.contextmanager
def claimed(disp):
    """Takes `disp`'s compile lock if no other process holds it, and holds it through the block:
    yields True then (the block compiles it: `compile_lock` inside is re-entrant), False if another
    process holds it (it is compiling it).  Test and take in one step, so two processes going
    down the same job list never start the same job (`compile_together`)."""
    path = _lock_path(disp)
    if path is None or path in _HELD:
        yield True
        return
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        yield True
        return
    try:
        try:
            _fcntl.flock(fd, _fcntl.LOCK_EX | _fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        _HELD.add(path)
        try:
            yield True
        finally:
            _HELD.discard(path)
    finally:
        os.close(fd)


def _code_objects(code):
    yield code
    for c in code.co_consts:
        if isinstance(c, type(code)):
            yield from _code_objects(c)


def _direct_callees(disp) -> set:
    """The jitted functions `disp`'s source names (as globals or attributes of imported modules):
    what numba types, lowers and links inside it (an Indirect's kernel is not named so)."""
    func = disp.py_func
    names = {n for code in _code_objects(func.__code__) for n in code.co_names}
    glob = func.__globals__
    modules = [glob[n] for n in names if isinstance(glob.get(n), type(os))]
    out = set()
    for n in names:
        for v in [glob.get(n)] + [getattr(m, n, None) for m in modules]:
            if isinstance(v, CPUDispatcher):
                out.add(v)
    return out


def call_tree(disp) -> set:
    """The jitted functions `disp`'s compile types and links: itself and its callees, each once."""
    seen, todo = set(), [disp]
    while todo:
        d = todo.pop()
        if d in seen:
            continue
        seen.add(d)
        todo.extend(_direct_callees(d))
    return seen


def _bytecode(funcs) -> int:
    return sum(len(code.co_code) for d in funcs for code in _code_objects(d.py_func.__code__))


def compile_size(disp) -> int:
    """An estimate of the work of compiling `disp`: the bytecode size of its call tree (each
    jitted function in it once).  numba's typing and lowering, and LLVM on the linked module,
    grow with it: over the cold pb-04 jobs it orders them as their measured compile CPU does
    (docs/performance.md, round 10)."""
    return _bytecode(call_tree(disp))


def largest_first(jobs: list[tuple]) -> list[tuple]:
    """`jobs` ((dispatcher, argument types) each) ordered by `compile_size`, largest first (the
    order both compiling processes take them in)."""
    sizes = {}
    for d, _ in jobs:
        if d not in sizes:
            try:
                sizes[d] = compile_size(d)
            except Exception:  # noqa: BLE001 - only an order; a function numba wraps oddly counts 0
                sizes[d] = 0
    return sorted(jobs, key=lambda job: -sizes[job[0]])


def related_halves(jobs: list[tuple]) -> tuple[list, list, list]:
    """`jobs` (largest first) in two halves of related call trees and a tail: the largest job
    seeds the first half, the largest sharing under a quarter of its bytecode with it the second;
    each other job joins the half whose functions it shares most bytecode with (no balancing:
    the process done with its half first takes the other's remaining jobs, the smallest last).
    Jobs sharing no function with any other (`soa._make`) are the tail.  Each process compiles
    one half first, so a job follows the related ones it reuses in the same process (what numba
    keeps in memory, not on disk: cold pb-04, `read_enemy` after `_plan_fire` 4.1-4.3 CPU-s,
    after `run_game` in the other process 4.8-5.3; docs/performance.md, round 10b)."""
    try:
        trees = {d: call_tree(d) for d, _ in jobs}
    except Exception:  # noqa: BLE001 - only an order; as largest_first then
        return list(jobs), [], []
    size = {d: _bytecode(t) for d, t in trees.items()}
    tail = [job for job in jobs if not any(trees[job[0]] & trees[d] for d, _ in jobs if d is not job[0])]
    rest = [job for job in jobs if job not in tail]
    halves: list[list] = [[], []]
    funcs: list[set] = [set(), set()]
    for job in rest:
        d = job[0]
        shared = [_bytecode(trees[d] & f) for f in funcs]
        if not halves[0]:
            g = 0
        elif not halves[1]:
            g = 1 if shared[0] < 0.25 * size[d] else 0
        else:
            g = 0 if shared[0] >= shared[1] else 1
        halves[g].append(job)
        funcs[g] |= trees[d]
    return halves[0], halves[1], tail


def in_disk_cache(disp, argtypes: tuple) -> bool:
    """Whether numba's disk cache holds `disp` compiled for `argtypes` (its index, read without
    loading the code).  False when that cannot be told (numba's private cache API changed)."""
    try:
        cache = disp._cache
        if isinstance(cache, caching.NullCache):
            return False
        disp.targetctx.refresh()
        key = cache._index_key(tuple(argtypes), disp.targetctx.codegen())
        return key in cache._cache_file._load_index()
    except Exception:  # noqa: BLE001 - only a hint for whether to start a helper
        return False


def _helper_allowed() -> bool:
    if numba.config.DISABLE_JIT or os.environ.get(HELPER_ENV, "1") == "0" or _fcntl is None:
        return False
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:
        cpus = os.cpu_count() or 1
    return cpus > 1 and _lock_dir() is not None


class _Helper:
    """The helper process and what it reported."""

    def __init__(self, jobs: list[tuple]):
        payload = pickle.dumps([(d.py_func.__module__, d.py_func.__qualname__, tuple(a)) for d, a in jobs])
        env = dict(os.environ, **{HELPER_ENV: "0"})
        self.proc = subprocess.Popen([sys.executable, "-m", "simulator._compile_helper"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, env=env)
        try:
            self.proc.stdin.write(payload)
            self.proc.stdin.close()
        except OSError:
            pass  # it died at once; this process compiles everything
        self.proc.stdin = None  # written and closed (communicate() would flush it again)

    def finish(self, timeout: float = 120.0) -> list[str]:
        """Waits for it (its last kernel is done: this process has loaded it), returns the kernels
        it compiled."""
        try:
            out, _ = self.proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            out, _ = self.proc.communicate()
        return out.decode(errors="replace").split()


LAST_HELPER: list[str] = []   # what the last helper process compiled (tests, bench)


def compile_together(jobs, helper: bool = True) -> list[tuple]:
    """Compiles (or loads from the disk cache) each (dispatcher, argument types) of `jobs`.
    With `helper`, when two or more are missing from the cache, a helper process compiles
    beside this one (see above), so a cold start uses two cores: each goes down its own half of
    related call trees (`related_halves`), then the other's, largest call tree first within each
    (`largest_first`), then the unrelated tail, taking the next job the other has not taken
    (`claimed`), so the two finish within about the last (smallest) job of each other.
    BALANCE_RELATED_HALVES=0: both go down one list, largest first (round 10's order).
    Then this process loads, once written, what the other compiled.  Returns the jobs this
    process compiled or loaded."""
    todo = [(d, tuple(a)) for d, a in jobs if tuple(a) not in d.overloads]
    if not todo or numba.config.DISABLE_JIT:
        return []
    todo = largest_first(todo)
    if os.environ.get("BALANCE_RELATED_HALVES", "1") != "0":
        mine, theirs, tail = related_halves(todo)
        todo, theirs = mine + theirs + tail, theirs + mine + tail
    else:
        theirs = todo
    cold = [(d, a) for d, a in theirs if not in_disk_cache(d, a)]
    started = _Helper(cold) if helper and len(cold) >= 2 and _helper_allowed() else None
    try:
        later = []
        for d, a in todo:
            if a in d.overloads:
                continue  # compiled while compiling an earlier one
            with claimed(d) as mine:
                if mine:
                    d.compile(a)
                else:
                    later.append((d, a))
        for d, a in later:
            with compile_lock(d):  # (also over a plain numba dispatcher: `soa._make`)
                d.compile(a)  # waits for the other process's compile, then loads it
    finally:
        if started is not None:
            LAST_HELPER[:] = started.finish()
    return todo


def _struct_jobs(structs) -> list[tuple]:
    """The compile of `soa._make` for each struct type of `structs` (what building the struct
    the first time it reaches a kernel compiles), as jobs of `compile_together`."""
    from simulator import soa

    jobs = {}
    for v in structs:
        ty = v._struct_type()
        jobs.setdefault(ty, (soa._make, (numba.typeof(ty), numba.typeof(v._values))))
    return list(jobs.values())


def bind_all(kernels, table: np.ndarray, also=(), **values) -> None:
    """`kernel.bind(table, **values)` for every Indirect of `kernels`, compiled together with the
    plain kernels `also` ((dispatcher, argument values) each: a game's entry kernel, which Python
    calls with those values) by `compile_together`."""
    if not numba.config.DISABLE_JIT:
        jobs = [(k.kernel, k.signature(values)) for k in kernels]
        jobs += [(d, tuple(type_of(v) for v in args)) for d, args in also]
        structs = [v for v in [*values.values(), *(v for _, args in also for v in args)]
                   if getattr(v, "_struct_type", None) is not None]
        compile_together(jobs + _struct_jobs(structs))
    for k in kernels:
        k.bind(table, **values)


try:
    import fcntl as _fcntl
except ImportError:  # not on Linux/macOS: no locks, no helper
    _fcntl = None
