"""One declaration per ruleset table: the checked Python object and the kernels' struct from it.

A ruleset compiles its data (simulator/ruleset.py) into frozen dataclasses ("the checked
objects": `CombatTables`, `UnitTypes`) and hands the kernels structs of arrays
(simulator/soa.py).  Each field of such a dataclass is declared once, with its type (the
annotation), where it comes from and whether the kernels read it:

    @dataclass(frozen=True)
    class CombatTables:
        crt: np.ndarray = computed("crt.rows", "the result codes, a row a modified roll")
        mod_terrain: int = entry("die_modifiers.terrain", "PB-CBT-10: defender in cover")
        load_and_move: bool = switch("readings.load_and_move", (True, False), False, "OQ-21: ...")
        column_names: tuple = computed("crt.columns", "...", kernel=False)

- `entry`: a number or flag read from a dotted key (with a default if the key may be left out);
- `switch`: a reading or an optional rule, one of a few values; the field is that value (two
  booleans), True where the key has the value `on`, or the index of the value among `values`;
- `computed`: made by the ruleset's compiler (a table, an index), from the key it names.

`read_entries` reads and checks every `entry` and `switch` (errors name the file, the key and
what was expected); `kernel_struct` makes the struct class of the fields the kernels read, and
`to_kernel` fills it by field name (with the kernel's dtype where declared), so two fields can
never be swapped by position.
"""

from __future__ import annotations

import dataclasses
import math

from simulator.errors import DataError
from simulator.soa import struct_of_arrays

META = "tablespec"
_REQUIRED = object()


@dataclasses.dataclass(frozen=True)
class Spec:
    """What a field's declaration says (the dataclass field's metadata)."""

    how: str                  # "entry", "switch" or "computed"
    source: str               # the dotted key of the ruleset data
    meaning: str
    kernel: bool | str = True  # the kernels read it (a str: under that name in the struct)
    kernel_dtype: type | None = None   # an array cast to this dtype for the kernels
    default: object = _REQUIRED
    values: tuple = ()        # switch: the values the key may take
    on: object = _REQUIRED    # switch: the field is True where the key has this value
    minimum: float | None = None  # entry: the least value allowed

    def kernel_name(self, name: str) -> str:
        return self.kernel if isinstance(self.kernel, str) else name


def _field(spec: Spec, default=dataclasses.MISSING):
    return dataclasses.field(default=default, metadata={META: spec})


def entry(source: str, meaning: str, *, default=_REQUIRED, minimum: float | None = None,
          kernel: bool | str = True):
    """A number or flag at `source`; `default` when the data leaves the key out."""
    return _field(Spec("entry", source, meaning, kernel, default=default, minimum=minimum))


def switch(source: str, values: tuple, default, meaning: str, *, on=_REQUIRED, kernel: bool | str = True):
    """A reading or optional rule at `source`, one of `values` (`default` when left out)."""
    if default not in values:
        raise ValueError(f"switch {source}: default {default!r} is not one of {values}")
    return _field(Spec("switch", source, meaning, kernel, default=default, values=tuple(values), on=on))


def computed(source: str, meaning: str, *, kernel: bool | str = True, kernel_dtype: type | None = None,
             default=dataclasses.MISSING):
    """A field the ruleset's compiler makes (from `source`); `default` for an object built by hand."""
    return _field(Spec("computed", source, meaning, kernel, kernel_dtype=kernel_dtype), default)


def specs(cls) -> dict[str, Spec]:
    """Field name -> its declaration, in declaration order (fields without one are left out)."""
    return {f.name: f.metadata[META] for f in dataclasses.fields(cls) if META in f.metadata}


def _lookup(data: dict, key: str):
    node = data
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            return _REQUIRED
        node = node[part]
    return node


def read_entries(cls, data: dict, where: str) -> dict[str, object]:
    """Every `entry` and `switch` of `cls` read from `data` and checked (`where`: the file)."""
    # The annotation says the type (a string under `from __future__ import annotations`).
    hints = {f.name: f.type if isinstance(f.type, str) else f.type.__name__ for f in dataclasses.fields(cls)}
    out: dict[str, object] = {}
    for name, spec in specs(cls).items():
        if spec.how == "computed":
            continue
        value = _lookup(data, spec.source)
        if value is _REQUIRED:
            if spec.default is _REQUIRED:
                raise DataError(where, spec.source, "missing", spec.meaning)
            value = spec.default
        if spec.how == "switch":
            if value not in spec.values or type(value) is not type(spec.default):
                raise DataError(where, spec.source, f"got {value!r}", f"one of {list(spec.values)}")
            if spec.on is not _REQUIRED:
                out[name] = value == spec.on
            elif isinstance(spec.default, bool):
                out[name] = value
            else:
                out[name] = spec.values.index(value)
            continue
        kind = hints[name]
        if kind not in ("bool", "int", "float"):
            raise TypeError(f"{cls.__name__}.{name}: an entry is a bool, int or float, not {kind}")
        if kind == "bool":
            if not isinstance(value, bool):
                raise DataError(where, spec.source, f"got {value!r}", "true or false")
            out[name] = value
            continue
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) \
                or (kind == "int" and not isinstance(value, int)):
            raise DataError(where, spec.source, f"got {value!r}", ("an integer" if kind == "int" else "a number")
                            + (f" >= {spec.minimum:g}" if spec.minimum is not None else ""))
        if spec.minimum is not None and value < spec.minimum:
            raise DataError(where, spec.source, f"got {value!r}", f"a value >= {spec.minimum:g}")
        out[name] = int(value) if kind == "int" else float(value)
    return out


def kernel_fields(cls) -> dict[str, str]:
    """Kernel field name -> the dataclass field it is made from, in declaration order."""
    return {spec.kernel_name(name): name for name, spec in specs(cls).items() if spec.kernel}


def kernel_struct(name: str, module: str, *tables, extra: tuple[str, ...] = ()) -> type:
    """The struct-of-arrays class (simulator/soa.py) of the kernel fields of these dataclasses,
    plus `extra` fields the builder adds by name."""
    fields = [k for cls in tables for k in kernel_fields(cls)] + list(extra)
    if len(set(fields)) != len(fields):
        raise ValueError(f"{name}: a kernel field is declared twice: {fields}")
    return struct_of_arrays(name, fields, module=module)


def to_kernel(struct_cls, *objects, **extra):
    """The kernels' struct, every field filled by name from the objects' declared fields (cast to
    the declared kernel dtype) and from `extra`."""
    values: dict[str, object] = {}
    for obj in objects:
        declared = specs(type(obj))
        for kname, name in kernel_fields(type(obj)).items():
            value = getattr(obj, name)
            dtype = declared[name].kernel_dtype
            values[kname] = value.astype(dtype) if dtype is not None else value
    values.update(extra)
    missing = [f for f in struct_cls._fields if f not in values]
    unknown = [f for f in values if f not in struct_cls._index]
    if missing or unknown:
        raise TypeError(f"{struct_cls.__name__}: missing {missing}, unknown {unknown}")
    return struct_cls(**values)
