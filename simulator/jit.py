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

import llvmlite.binding as _llvm
import numba
import numpy as np
from numba.core import cgutils, errors, types
from numba.core import codegen as _codegen
from numba.core.imputils import lower_constant
from numba.core.registry import CPUDispatcher
from numba.extending import intrinsic, models, register_model, typeof_impl


def kernel_arg_type(ty):
    """The type a kernel is compiled for when another kernel passes it `ty`: no literal, and
    every integer scalar as int64."""
    ty = types.unliteral(ty)
    if isinstance(ty, types.Integer):
        return types.int64
    return ty


class KernelDispatcher(CPUDispatcher):
    """numba's CPU dispatcher, compiling callees for `kernel_arg_type` argument types."""

    def get_call_template(self, args, kws):
        # The hook numba's typing calls when another kernel calls this one (types.Dispatcher).
        args = tuple(kernel_arg_type(a) for a in args)
        kws = {k: kernel_arg_type(v) for k, v in kws.items()}
        return super().get_call_template(args, kws)


def njit(**options):
    """`numba.njit(**options)` (always with keyword options, e.g. `@njit(cache=True)`), with
    `KernelDispatcher` as the dispatcher; with NUMBA_DISABLE_JIT=1 the plain function."""

    def wrap(func):
        disp = numba.njit(**options)(func)
        if type(disp) is CPUDispatcher:  # a function when the JIT is disabled
            # numba's decorators offer no public way to pick a dispatcher class short of
            # registering a new compilation target; the subclass adds no state.
            disp.__class__ = KernelDispatcher
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

    def signature(self, values: dict[str, object]) -> tuple:
        """The argument types: the declared ones, and `typeof` of the named values."""
        sig = []
        for ty in self.args:
            if isinstance(ty, str):
                if ty not in values:
                    raise TypeError(f"{self.name}: no value for argument {ty!r}")
                ty = numba.typeof(values[ty])
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


INDIRECT: dict[str, Indirect] = {}
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
        actual = kernel_arg_type(actual)
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

    def _get_module_for_linking(self):
        if self._shared_module is None and self._link_bitcode is not None:
            self._shared_module = _llvm.parse_bitcode(self._link_bitcode)
        return super()._get_module_for_linking()


def _load_link_modules_on_demand() -> None:
    # Only over the class this was written against (numba 0.59-0.68: the JIT codegen's library
    # class, with these private methods); otherwise numba's own behaviour stays.
    cg = _codegen.JITCPUCodegen
    if cg._library_class is _codegen.JITCodeLibrary and all(
            hasattr(_codegen.CPUCodeLibrary, m) for m in ("_unserialize", "_get_module_for_linking",
                                                            "_set_compiled_object", "enable_object_caching")):
        cg._library_class = _LinkOnDemandLibrary


_load_link_modules_on_demand()
