"""Where a game's time goes in the compiled kernels: a perf map of numba's code, a perf profile, and
the callers of numba's reference counting.

numba's machine code lives in memory that perf cannot name.  This tool, in the process that plays:
- records every object file numba's execution engine compiles or loads from the cache (the
  engine's object-cache hooks), and writes /tmp/perf-PID.map from them: each object's ELF
  symbols, **weak ones included** (the callees linked into a kernel's module are weak, or local,
  symbols there: a map of the global ones alone names only the kernels), placed by the address
  the engine gives a global function symbol of the same section;
- plays warm-up games (kernels loaded), writes the map, runs `perf record -F FREQ --call-graph
  dwarf,64 -p PID` while it plays more games for SECONDS of wall time, and prints the shares of
  the samples by symbol (numba's names shortened to module.function);
- sums the shares by part (`split`: search, player, rules, memory, Python);
- charges each sample inside `NRT_incref` / `NRT_decref` (leaves that push nothing, so the
  return address is the first word of the sampled user stack) to the symbol holding that
  return address, read from `perf script -D`'s dump of the sample's user stack.

    PYTHONPATH=<tree> XDG_CACHE_HOME=... .venv/bin/python bench/perf_map.py pb-04 --seconds 20 [--out /tmp/pm-pb04]

Needs perf (kernel.perf_event_paranoid <= 2 is enough for a process of one's own).  Only a
profiler's view (sampling shares), never a timing; timings are bench/ab_games.py's.
"""

from __future__ import annotations

import argparse
import bisect
import collections
import os
import re
import signal
import struct
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_OBJECTS: list[bytes] = []   # every object file the engine compiled or loaded, in order


def install() -> None:
    """Hook numba's execution engine so that every object file it compiles or loads is kept.
    Call before any kernel is compiled or loaded."""
    from numba.core.codegen import JITCPUCodegen  # noqa: F401
    from numba.core.registry import cpu_target

    import simulator  # noqa: F401  (first: it points numba's cache at the checkout's folder)

    codegen = cpu_target.target_context.codegen()
    lib = codegen._library_class

    def compiled(ll_module, buf):
        _OBJECTS.append(bytes(buf))
        return lib._object_compiled_hook(ll_module, buf)

    def getbuffer(ll_module):
        buf = lib._object_getbuffer_hook(ll_module)
        if buf:
            _OBJECTS.append(bytes(buf))
        return buf

    codegen._engine.set_object_cache(compiled, getbuffer)
    _ENGINE.append(codegen._engine)


_ENGINE: list = []


def elf_symbols(buf: bytes):
    """(name, bind, type, section index, value, size) of each symbol of an ELF64 object."""
    if buf[:4] != b"\x7fELF" or buf[4] != 2:
        return []
    shoff, = struct.unpack_from("<Q", buf, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", buf, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", buf, shoff + i * shentsize) for i in range(shnum)]
    out = []
    for sh in sections:
        if sh[1] != 2:  # SHT_SYMTAB
            continue
        strtab = sections[sh[6]]
        str_off = strtab[4]
        for k in range(sh[5] // 24):
            name_off, info, _other, shndx, value, size = struct.unpack_from("<IBBHQQ", buf, sh[4] + 24 * k)
            if shndx == 0 or shndx >= 0xFF00:
                continue
            end = buf.index(b"\0", str_off + name_off)
            name = buf[str_off + name_off:end].decode("utf-8", "replace")
            if name:
                out.append((name, info >> 4, info & 0xF, shndx, value, size))
    return out


_COMPONENT = re.compile(r"(\d+)")


def short_name(name: str) -> str:
    """numba's mangled `_ZN<len><part>...` names as their last two parts (module.function)."""
    if not name.startswith("_ZN"):
        return name
    parts, i = [], 3
    while i < len(name) and name[i].isdigit():
        m = _COMPONENT.match(name, i)
        n = int(m.group(1))
        i = m.end()
        parts.append(name[i:i + n])
        i += n
    if not parts:
        return name
    parts = [p.replace("_3c", "<").replace("_3e", ">").replace("_24", "$") for p in parts]
    return ".".join(parts[-2:])


def map_entries():
    """(start, size, name) of every function symbol of the recorded objects that can be placed."""
    engine = _ENGINE[0]
    entries = []
    for buf in _OBJECTS:
        syms = elf_symbols(buf)
        base = {}
        for name, bind, typ, shndx, value, _size in syms:
            if bind == 1 and typ == 2 and shndx not in base:  # a global function: its address
                try:
                    addr = engine.get_function_address(name)
                except Exception:
                    addr = 0
                if addr:
                    base[shndx] = addr - value
        for name, _bind, typ, shndx, value, size in syms:
            if typ == 2 and shndx in base and size > 0:
                entries.append((base[shndx] + value, size, short_name(name)))
    entries.sort()
    return entries


def write_map(pid: int | None = None) -> Path:
    path = Path(f"/tmp/perf-{pid or os.getpid()}.map")
    with path.open("w") as f:
        for start, size, name in map_entries():
            f.write(f"{start:x} {size:x} {name}\n")
    return path


def _sample_stacks(perf_data: Path):
    """(ip, first word of the sampled user stack) of each sample: `perf script -D` gives each
    record's file offset and its user stack's offset in the record (a u64 size, then the bytes)."""
    raw = perf_data.read_bytes()
    out = subprocess.run(["perf", "script", "-D", "-i", str(perf_data)], capture_output=True, text=True,
                         errors="replace").stdout
    record = ip = None
    for line in out.splitlines():
        if "PERF_RECORD_SAMPLE" in line:
            m = re.match(r"\d+ (0x[0-9a-f]+) \[0x[0-9a-f]+\]: PERF_RECORD_SAMPLE.*?: \d+/\d+: (0x[0-9a-f]+)", line)
            record, ip = (int(m.group(1), 16), int(m.group(2), 16)) if m else (None, None)
        elif record is not None and line.startswith("... ustack:"):
            m = re.search(r"size (\d+), offset (0x[0-9a-f]+)", line)
            if m and int(m.group(1)) >= 8:
                at = record + int(m.group(2), 16) + 8
                yield ip, struct.unpack_from("<Q", raw, at)[0]
            record = None


def analyse(perf_data: Path, map_path: Path, top: int) -> None:
    entries = []
    for line in map_path.read_text().splitlines():
        a, s, n = line.split(" ", 2)
        entries.append((int(a, 16), int(s, 16), n))
    starts = [e[0] for e in entries]

    def name_of(addr):
        i = bisect.bisect_right(starts, addr) - 1
        if i >= 0 and entries[i][0] <= addr < entries[i][0] + entries[i][1]:
            return entries[i][2]
        return None

    rep = subprocess.run(["perf", "report", "-i", str(perf_data), "--no-children", "--sort", "sym", "--stdio",
                          "-g", "none", "--percent-limit", "0.3"], capture_output=True, text=True).stdout
    print("== shares of all samples by symbol (perf report, self) ==")
    lines = [x for x in rep.splitlines() if x.strip() and not x.startswith("#")]
    for x in lines[:top]:
        print(x)
    split(perf_data)
    callers = collections.Counter()
    total = nrt = 0
    for ip, word in _sample_stacks(perf_data):
        total += 1
        n = name_of(ip)
        if n in ("NRT_incref", "NRT_decref"):
            nrt += 1
            callers[name_of(word) or "?"] += 1
    if total:
        print(f"== NRT_incref/NRT_decref: {nrt} of {total} samples ({100 * nrt / total:.1f} %); callers: ==")
        for n, k in callers.most_common(top):
            print(f"  {100 * k / total:5.1f} % of all  {100 * k / max(nrt, 1):5.1f} % of refcounting  {n}")


# What a sample's symbol is part of (`split`): the player's kernels (the heuristic's scoring and
# reading, and the dispatch that hands it the engine's options), the one search the floor also
# makes, the rest of the rules, the allocator, and Python with numpy's C code.
PLAYER_MODULES = ("heuristic", "goals", "random_play", "dispatch")
MEMORY = ("malloc", "free", "memset", "memmove", "memcpy", "NRT_", "unlink_chunk", "tcache", "calloc")


def kind_of(symbol: str) -> str:
    """`split`'s part for a symbol as perf reports it (numba's shortened to module.function)."""
    if symbol == "movement.reachable_bits":
        return "search"
    if any(m in symbol for m in MEMORY):
        return "memory"
    if symbol.startswith("<locals>."):
        return "numba's numpy"  # np.max, np.zeros and the like, compiled inside the kernels
    module = symbol.split(".")[0]
    if "." in symbol and module.isidentifier() and not module.startswith("_"):
        return "player" if module in PLAYER_MODULES else "rules"
    return "Python and numpy"


def split(perf_data: Path) -> dict[str, float]:
    """Shares of all samples by part (`kind_of`), every symbol counted: the player's share says
    how far a player that cost nothing would bring the engine towards the floor (issue 22,
    round 15: engine/floor x (1 - player share))."""
    rep = subprocess.run(["perf", "report", "-i", str(perf_data), "--no-children", "--sort", "sym", "--stdio",
                          "-g", "none", "--percent-limit", "0"], capture_output=True, text=True).stdout
    parts: collections.Counter = collections.Counter()
    for line in rep.splitlines():
        m = re.match(r"\s+([\d.]+)%\s+\[.\]\s+(\S+)", line)
        if m:
            parts[kind_of(m.group(2))] += float(m.group(1))
    print("== shares by part (every symbol) ==")
    for k, v in parts.most_common():
        print(f"  {v:6.2f} %  {k}")
    return dict(parts)


def annotate(perf_data: Path, name: str, context: int = 0) -> None:
    """Samples by instruction inside every copy of function `name` (its machine code read from
    this process's memory and disassembled by objdump): the hot instructions, with the code
    around them.  Call in the process that played, while its kernels are loaded."""
    import ctypes
    import tempfile

    ips = collections.Counter(ip for ip, _ in _sample_stacks(perf_data))
    total = sum(ips.values())
    for start, size, n in map_entries():
        if n != name:
            continue
        inside = {ip: k for ip, k in ips.items() if start <= ip < start + size}
        hits = sum(inside.values())
        if not hits:
            continue
        with tempfile.NamedTemporaryFile(suffix=".bin") as f:
            f.write(ctypes.string_at(start, size))
            f.flush()
            dis = subprocess.run(["objdump", "-D", "-b", "binary", "-m", "i386:x86-64", "--no-show-raw-insn",
                                  f"--adjust-vma={start:#x}", f.name], capture_output=True, text=True).stdout
        print(f"== {name} at {start:#x} ({size} bytes): {hits} samples, {100 * hits / total:.1f} % of all ==")
        for line in dis.splitlines():
            m = re.match(r"\s*([0-9a-f]+):\s*(.*)", line)
            if not m:
                continue
            k = inside.get(int(m.group(1), 16), 0)
            print(f"{k:6d} {m.group(1)[-5:]}: {m.group(2)}")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("situation")
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--freq", type=int, default=499)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--out", type=Path, default=None, help="directory for perf.data (default /tmp/perfmap-SIT)")
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--annotate", action="append", default=[], help="a function (short name) to show by "
                    "instruction with its samples")
    a = ap.parse_args(argv)
    install()
    from simulator import registry
    from simulator.rulesets.panzerblitz.batch import play_games, prepare
    from simulator.situation import load_situation

    sit = load_situation(a.situation)
    t = prepare(sit)
    policies = registry.ruleset(sit.ruleset.name).players.parse(None, sit.side_names)
    play_games(t, list(range(10_000, 10_000 + a.warmup)), policies)
    map_path = write_map()
    out = a.out or Path(f"/tmp/perfmap-{a.situation}")
    out.mkdir(parents=True, exist_ok=True)
    data = out / "perf.data"
    perf = subprocess.Popen(["perf", "record", "-q", "-F", str(a.freq), "--call-graph", "dwarf,64", "-p",
                             str(os.getpid()), "-o", str(data)], stdout=subprocess.DEVNULL)
    time.sleep(0.5)
    t0, seed, games = time.perf_counter(), 1, 0
    while time.perf_counter() - t0 < a.seconds:
        play_games(t, list(range(seed, seed + 10)), policies)  # batches, as a run plays them
        seed += 10
        games += 10
    perf.send_signal(signal.SIGINT)
    perf.wait()
    print(f"# {a.situation}: {games} games sampled, load {os.getloadavg()[0]:.1f}, map {map_path}")
    analyse(data, map_path, a.top)
    for name in a.annotate:
        annotate(data, name)


if __name__ == "__main__":
    main()
