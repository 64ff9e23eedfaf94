"""A perf map of numba's compiled code, and a perf run of heuristic games that uses it.

numba keeps no symbols perf can read: this records the object code of every library numba
loads or compiles (hooks on its MCJIT object cache), reads each one's ELF symbol table (local,
global and weak functions: callees linked into a kernel keep their own symbols there), places
each section by the address the engine gives one global function in it, and writes
/tmp/perf-PID.map.  Then `perf record` on this process while it plays games:

    python bench/perf_map_heur.py pb-04 --seconds 20        # prints the top symbols (self)

Samples in NRT_incref/NRT_decref (leaves that push no frame) are also charged to their caller,
read from the return address at the top of the sampled stack (`--call-graph dwarf,64`).
(The heuristic helper's copy, round 10; the engine helper's is bench/perf_map.py.)
"""

from __future__ import annotations

import argparse
import bisect
import collections
import os
import struct
import subprocess
import sys
import threading
import time

_OBJECTS: list = []  # (library, ELF bytes)


def install() -> None:
    """Record the object code of every library numba compiles or loads from now on."""
    from numba.core.codegen import CPUCodeLibrary

    compiled, getbuffer = CPUCodeLibrary._object_compiled_hook, CPUCodeLibrary._object_getbuffer_hook

    def on_compiled(ll_module, buf):
        lib = getattr(ll_module, "_CPUCodeLibrary__library", None)
        if lib is not None:
            _OBJECTS.append((lib, bytes(buf)))
        return compiled(ll_module, buf)

    def on_getbuffer(ll_module):
        buf = getbuffer(ll_module)
        lib = getattr(ll_module, "_CPUCodeLibrary__library", None)
        if lib is not None and buf:
            _OBJECTS.append((lib, bytes(buf)))
        return buf

    CPUCodeLibrary._object_compiled_hook = staticmethod(on_compiled)
    CPUCodeLibrary._object_getbuffer_hook = staticmethod(on_getbuffer)
    import llvmlite.binding as ll  # the engine holds the hooks it was made with: set them again
    from numba.core.registry import cpu_target

    engine = cpu_target.target_context.codegen()._engine._ee
    engine.set_object_cache(on_compiled, on_getbuffer)
    del ll


def elf_functions(buf: bytes):
    """(section index, name, value, size, binding) of each function symbol of an ELF64 object."""
    shoff, = struct.unpack_from("<Q", buf, 0x28)
    shentsize, shnum, _ = struct.unpack_from("<HHH", buf, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", buf, shoff + i * shentsize) for i in range(shnum)]
    for sec in sections:
        if sec[1] != 2:  # SHT_SYMTAB
            continue
        strtab = sections[sec[6]]
        for off in range(sec[4], sec[4] + sec[5], 24):
            name_off, info, _, shndx, value, size = struct.unpack_from("<IBBHQQ", buf, off)
            if info & 0xF != 2 or shndx == 0 or shndx >= 0xFF00:
                continue
            start = strtab[4] + name_off
            name = buf[start:buf.index(b"\0", start)].decode()
            yield shndx, name, value, size, info >> 4


def write_map() -> str:
    """Writes /tmp/perf-PID.map for the object code recorded so far; returns its path."""
    from numba.core.registry import cpu_target

    engine = cpu_target.target_context.codegen()._engine._ee
    lines = []
    for _, buf in _OBJECTS:
        syms = list(elf_functions(buf))
        base = {}
        for shndx, name, value, _, bind in syms:
            if bind == 1 and shndx not in base:
                addr = engine.get_function_address(name)
                if addr:
                    base[shndx] = addr - value
        for shndx, name, value, size, _ in syms:
            if shndx in base and size:
                lines.append(f"{base[shndx] + value:x} {size:x} {name}\n")
    path = f"/tmp/perf-{os.getpid()}.map"
    with open(path, "w") as f:
        f.writelines(lines)
    return path


def _short(name: str) -> str:
    """A numba mangled name made readable enough: its module and function."""
    if name.startswith("_ZN"):
        parts, i = [], 3
        while i < len(name) and name[i].isdigit():
            j = i
            while name[j].isdigit():
                j += 1
            n = int(name[i:j])
            parts.append(name[j:j + n])
            i = j + n
        parts = [p for p in parts if not p.startswith("_3c") and p not in ("simulator", "rulesets", "panzerblitz")]
        return ".".join(parts[-2:]) if parts else name
    return name


def report(data: str, top: int) -> None:
    """Self samples by symbol, and the callers of numba's reference counting."""
    out = subprocess.run(["perf", "script", "-i", data, "-F", "ip,sym"], capture_output=True, text=True).stdout
    self_count = collections.Counter()
    nrt_callers = collections.Counter()
    total = 0
    for block in out.split("\n\n"):
        rows = [r.split(None, 1) for r in block.strip().splitlines() if r.strip()]
        if not rows:
            continue
        total += 1
        sym = rows[0][1] if len(rows[0]) > 1 else "?"
        s = _short(sym)
        self_count[s] += 1
        if "NRT_incref" in sym or "NRT_decref" in sym:
            caller = next((_short(r[1]) for r in rows[1:] if len(r) > 1 and "NRT_" not in r[1]), "?")
            nrt_callers[caller] += 1
    print(f"{total} samples")
    for s, c in self_count.most_common(top):
        print(f"{100 * c / total:6.2f} %  {s}")
    nrt = sum(nrt_callers.values())
    print(f"-- NRT_incref/decref {100 * nrt / max(total, 1):.1f} %, by caller:")
    for s, c in nrt_callers.most_common(15):
        print(f"{100 * c / total:6.2f} %  {s}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("card")
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--out", default=None, help="perf data file (default /tmp/perf-heur-CARD.data)")
    args = ap.parse_args()
    install()
    from simulator.bench import heuristic_policies
    from simulator.rulesets.panzerblitz.batch import play_games, prepare
    from simulator.situation import load_situation

    sit = load_situation(args.card)
    t = prepare(sit)
    policies = heuristic_policies(sit)
    play_games(t, [10_000], policies)  # every kernel loaded
    print("map:", write_map(), len(_OBJECTS), "objects", file=sys.stderr)
    data = args.out or f"/tmp/perf-heur-{args.card}.data"
    stop = threading.Event()
    perf = subprocess.Popen(["perf", "record", "-q", "-F", "499", "--call-graph", "dwarf,64", "-o", data,
                             "-p", str(os.getpid())], stderr=subprocess.DEVNULL)
    time.sleep(1.0)
    seed, t0 = 1, time.time()
    while time.time() - t0 < args.seconds and not stop.is_set():
        play_games(t, list(range(seed, seed + 10)), policies)
        seed += 10
    perf.send_signal(2)
    perf.wait()
    report(data, args.top)


if __name__ == "__main__":
    main()
