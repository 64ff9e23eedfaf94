"""Named structs of arrays that compiled kernels receive as one pointer.

A game's state and its read-only tables are bundles of dozens of arrays.  Passed to numba as
namedtuples, every array travels as seven machine values through every call, and numba
compiles (and LLVM optimises) that unpacking in each of the ~300 kernel signatures: measured,
a kernel taking the 58-array state compiled in a median 2.3 s against 0.22 s for one that did
not (docs/performance.md, "Cold start").  `struct_of_arrays` makes a class that Python code
uses like a namedtuple (fields by name or position, `_replace`, `_fields`, pickling) and that
numba sees as a StructRef: one pointer to the same arrays, so a kernel's signature is small
and Python and the kernels share the arrays' memory.

Neither the struct nor its array fields are reference-counted in the kernels (`BorrowedArray`,
`_BorrowedStructModel`): the Python object owns both, and a kernel only ever gets a struct
from Python, which holds the object for the call.  numba's StructRef counts a reference on
every struct argument, alias and field read, each an out-of-line NRT call that also keeps LLVM
from holding a loop's values in registers: 18-22 % of a game's samples (docs/performance.md,
"Issue 22, round 11").  What this asks of kernels: never return a struct or a view of a field
to Python (the first does not compile, the second is a RuntimeError at the call, see
`simulator.jit.KernelDispatcher`), never put a new array into a field (does not compile).

The StructRef is built the first time the object reaches a kernel (numba asks its type), so
pure-Python users (reports, the victory evaluation) never pay for it, and with
NUMBA_DISABLE_JIT=1 the kernels simply read the Python attributes.

The StructRef type class lives here, in a module without kernels, so that numba's on-disk cache
can find it again (numba issue 9030: a structref defined in the caching module misses the cache).
"""

from __future__ import annotations

import numpy as np
from numba import njit, typeof
from numba.core import cgutils, errors, types
from numba.core.datamodel import default_manager, models
from numba.experimental import structref
from numba.experimental.jitclass.base import imp_dtor
from numba.extending import NativeValue, box, intrinsic, lower_cast, register_model, unbox


class BorrowedArray(types.Array):
    """Numba type of an array field of a struct: the array as the kernels see it, without a
    reference count of its own.

    A struct is built from a Python object whose slots hold the arrays for the object's whole
    life (`_StructOfArrays`), so the struct need not own them.  Typed as a plain array, every
    read of a field in a kernel costs an NRT_incref and an NRT_decref call (non-inlined, so the
    compiler cannot keep a loop's values in registers across them): measured ~20 % of a game's
    samples.  This type's data model declares the meminfo slot as a plain pointer (always NULL),
    so numba emits no reference counting for it; it converts freely to a plain array (a view
    without an owner), and nothing converts to it but `_pack`, so a kernel cannot store an
    array it made into a struct field and lose it."""

    def __init__(self, dtype, ndim, layout, readonly=False, aligned=True):
        name = f"borrowed {'readonly ' if readonly else ''}array({dtype}, {ndim}d, {layout})"
        super().__init__(dtype, ndim, layout, readonly=readonly, aligned=aligned, name=name)


@register_model(BorrowedArray)
class _BorrowedArrayModel(models.StructModel):
    # The layout of numba's ArrayModel, with the meminfo as an untracked pointer.
    def __init__(self, dmm, fe_type):
        members = [
            ("meminfo", types.voidptr),
            ("parent", types.pyobject),
            ("nitems", types.intp),
            ("itemsize", types.intp),
            ("data", types.CPointer(fe_type.dtype)),
            ("shape", types.UniTuple(types.intp, fe_type.ndim)),
            ("strides", types.UniTuple(types.intp, fe_type.ndim)),
        ]
        super().__init__(dmm, fe_type, members)


@lower_cast(BorrowedArray, types.Array)
def _borrowed_to_array(context, builder, fromty, toty, val):
    # The same layout; the meminfo is NULL, so a plain array's reference counting is a no-op on it.
    return val


@lower_cast(types.Array, BorrowedArray)
def _array_to_borrowed(context, builder, fromty, toty, val):
    if isinstance(fromty, BorrowedArray):
        return val
    raise TypeError(f"{fromty} cannot become a struct field in a kernel (the struct does not own its arrays)")


def _field_type(ty):
    if type(ty) is types.Array:
        return BorrowedArray(ty.dtype, ty.ndim, ty.layout, readonly=not ty.mutable, aligned=ty.aligned)
    return ty


class ArraysType(types.StructRef):
    """Numba type of a struct of arrays (and scalars): fields are (name, numba type)."""

    def preprocess_fields(self, fields):
        return tuple((name, _field_type(types.unliteral(ty))) for name, ty in fields)


class _BorrowedStructModel(models.StructModel):
    """A struct as the kernels see it: a pointer to its payload, not reference-counted.

    The struct belongs to its Python object (the `_ref` slot holds the only reference) and a
    kernel only ever receives it from Python, which holds the object for the call.  numba's
    StructRef model counts references on every argument, alias and nested field (an inlined
    callee takes and drops one per struct argument): those NRT calls were most of the ~18 % of
    a game's samples left in reference counting once the array fields were borrowed."""

    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, [("meminfo", types.voidptr)])


default_manager.register(ArraysType, _BorrowedStructModel)
structref.define_attributes(ArraysType)


@box(ArraysType)
def _box_struct(typ, val, c):
    # A struct handed back to Python would need a reference the kernels never counted.
    raise errors.NumbaNotImplementedError(
        f"a kernel cannot return a struct of arrays ({typ.name[:60]}...) to Python: return its fields")


@unbox(ArraysType)
def _unbox_struct(typ, obj, c):
    mi_obj = c.pyapi.object_getattr_string(obj, "_meminfo")
    meminfo = c.pyapi.nrt_meminfo_from_pyobject(mi_obj)
    # That took a reference; give it back at once: the Python object keeps the struct alive.
    c.context.nrt.decref(c.builder, types.MemInfoPointer(types.voidptr), meminfo)
    c.pyapi.decref(mi_obj)
    struct = cgutils.create_struct_proxy(typ)(c.context, c.builder)
    struct.meminfo = meminfo
    return NativeValue(struct._getvalue())


@intrinsic
def _pack(typingctx, struct_type, values):
    """A new struct of `struct_type` holding the elements of the tuple `values` in field order,
    as its MemInfo (one reference, which the Python object takes)."""
    inst_type = struct_type.instance_type

    def codegen(context, builder, sig, args):
        data_type = inst_type.get_data_type()
        alloc_type = context.data_model_manager[data_type].get_value_type()
        meminfo = context.nrt.meminfo_alloc_dtor(
            builder, context.get_constant(types.uintp, context.get_abi_sizeof(alloc_type)),
            imp_dtor(context, builder.module, inst_type))
        data_pointer = builder.bitcast(context.nrt.meminfo_data(builder, meminfo), alloc_type.as_pointer())
        builder.store(cgutils.get_null_value(alloc_type), data_pointer)
        data = cgutils.create_struct_proxy(data_type)(context, builder, ref=data_pointer)
        value_types = sig.args[1].types
        for i, (name, field_type) in enumerate(inst_type.field_dict.items()):
            value = builder.extract_value(args[1], i)
            if isinstance(field_type, BorrowedArray):
                # The Python object owns the array; the struct keeps its data, shape and parent.
                array = context.make_array(value_types[i])(context, builder, value)
                field = cgutils.create_struct_proxy(field_type)(context, builder)
                for member in ("parent", "nitems", "itemsize", "data", "shape", "strides"):
                    setattr(field, member, getattr(array, member))
                field.meminfo = cgutils.get_null_value(field.meminfo.type)
                value = field._getvalue()
            else:
                value = context.cast(builder, value, value_types[i], field_type)
                # The struct owns a reference (none is counted on a nested struct, which its
                # own Python object, in this object's slot, keeps alive).
                context.nrt.incref(builder, field_type, value)
            setattr(data, name, value)
        return meminfo

    return types.MemInfoPointer(types.voidptr)(struct_type, values), codegen


@njit(cache=True)
def _make(struct_type, values):
    return _pack(struct_type, values)


def _as_field(value):
    # One numba type per field whatever the caller passed: contiguous arrays, Python scalars.
    # (A strided view becomes a contiguous copy, which is then the field the kernels write.)
    if isinstance(value, np.ndarray):
        return np.ascontiguousarray(value)
    if isinstance(value, np.generic):
        return value.item()
    return value


class _StructOfArrays:
    """Base of the classes `struct_of_arrays` makes.  Each field is a slot: Python reads it as
    fast as a namedtuple's field (it matters when the kernels run as Python, JIT disabled)."""

    _fields: tuple[str, ...] = ()
    _index: dict[str, int] = {}   # field name -> position (set per class)
    _types: dict = {}             # field-type key -> numba type (set per class)
    __slots__ = ("_ref",)

    def __init__(self, *args, **kwargs):
        if len(args) > len(self._fields):
            raise TypeError(f"{type(self).__name__} takes {len(self._fields)} fields, got {len(args)}")
        values = dict(zip(self._fields, args, strict=False))
        for name, value in kwargs.items():
            if name not in self._index:
                raise TypeError(f"{type(self).__name__} has no field {name!r}")
            if name in values:
                raise TypeError(f"{type(self).__name__}: field {name!r} given twice")
            values[name] = value
        missing = [f for f in self._fields if f not in values]
        if missing:
            raise TypeError(f"{type(self).__name__}: missing fields {missing}")
        for name in self._fields:
            object.__setattr__(self, name, _as_field(values[name]))
        object.__setattr__(self, "_ref", None)

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} is immutable; use _replace")

    @property
    def _values(self) -> tuple:
        return tuple(getattr(self, name) for name in self._fields)

    def __iter__(self):
        return iter(self._values)

    def __len__(self):
        return len(self._fields)

    def __getitem__(self, i):
        return getattr(self, self._fields[i])

    def __reduce__(self):
        return (type(self), self._values)

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(self._fields)})"

    def _replace(self, **changes):
        new = object.__new__(type(self))
        for name in self._fields:  # the unchanged fields are already normalised
            object.__setattr__(new, name, getattr(self, name))
        for name, value in changes.items():
            if name not in self._index:
                raise TypeError(f"{type(self).__name__} has no field {name!r}")
            object.__setattr__(new, name, _as_field(value))
        object.__setattr__(new, "_ref", None)
        return new

    def _asdict(self):
        return dict(zip(self._fields, self._values, strict=True))

    def _struct(self):
        # Built once, on the first call into a kernel: (numba type, MemInfo of the struct).  The
        # struct points at this object's arrays without owning them (see BorrowedArray): the
        # slots keep them alive as long as the struct, which only this object references.
        if self._ref is None:
            ty = self._struct_type()
            object.__setattr__(self, "_ref", (ty, _make(ty, self._values)))
        return self._ref

    def _struct_type(self):
        # typeof() of every field costs ~1 ms for the state; a game's state has the same
        # field types as the last one, so look the numba type up by dtype/ndim/writeable.
        key = tuple((v.dtype.str, v.ndim, v.flags.writeable) if isinstance(v, np.ndarray) else type(v)
                    for v in self._values)
        ty = self._types.get(key)
        if ty is None:
            ty = ArraysType([(name, typeof(v)) for name, v in zip(self._fields, self._values, strict=True)])
            self._types[key] = ty
        return ty

    @property
    def _numba_type_(self):
        try:
            return self._struct()[0]
        except AttributeError as e:  # a property's AttributeError would read as "no such attribute"
            raise RuntimeError(f"building the numba struct of {type(self).__name__}: {e}") from e

    @property
    def _meminfo(self):
        return self._struct()[1]


def struct_of_arrays(name: str, fields: list[str], module: str | None = None) -> type:
    """A namedtuple-like class with these fields that numba kernels receive as a StructRef."""
    for field in fields:
        if field.startswith("_") or hasattr(_StructOfArrays, field):
            raise ValueError(f"{name}: field name {field!r} is reserved")
    attrs = {"__slots__": tuple(fields), "_fields": tuple(fields), "_index": {f: i for i, f in enumerate(fields)},
             "_types": {}}
    cls = type(name, (_StructOfArrays,), attrs)
    if module is not None:
        cls.__module__ = module  # so that pickle finds the class by name
    return cls
