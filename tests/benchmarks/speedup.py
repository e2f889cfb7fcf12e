"""A benchmark against the code it replaced: the old way timed once beside pytest-benchmark's
mean of the new one, reported (extra_info and a printed line), never asserted."""


def _ms(seconds: float) -> str:
    ms = 1000 * seconds
    return f"{ms:.2f} ms" if ms < 10 else f"{ms:.0f} ms"


def record_speedup(benchmark, before_s: float, label: str, before: str = "before") -> float:
    """Put the benchmarked mean, ``before_s`` (the old way's time) and their ratio into
    ``benchmark.extra_info`` (ms, before_ms, speedup) and print them after ``label``, naming the
    old way ``before``; returns the speed-up."""
    now = benchmark.stats.stats.mean
    speedup = before_s / now
    benchmark.extra_info.update(
        {"ms": 1000 * now, "before_ms": 1000 * before_s, "speedup": speedup}
    )
    ratio = f"{speedup:.1f}x" if speedup < 10 else f"{speedup:.0f}x"
    print(f"\n{label}: {_ms(now)}; {before} {_ms(before_s)}; speed-up {ratio}")
    return speedup
