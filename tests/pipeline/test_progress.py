"""Reading tqdm's bar out of a kernel's stderr and redrawing it on one terminal line."""

import io

from tqdm import tqdm

from pipeline.progress import BarState, ProgressLine, last_bar


def _tqdm_text(total, steps, desc="fig8"):
    out = io.StringIO()
    with tqdm(total=total, desc=desc, unit="run", file=out, mininterval=0) as bar:
        for _ in range(steps):
            bar.update(1)
        return out.getvalue()


def test_last_bar_reads_what_tqdm_draws():
    state = last_bar(_tqdm_text(100, 45))
    assert (state.desc, state.done, state.total) == ("fig8", 45, 100)
    assert state.elapsed == "00:00" and state.eta.count(":") == 1
    assert last_bar("\rsweep:   0%|          | 0/8 [00:00<?, ?run/s]") == BarState(
        "sweep", 0, 8, "00:00", "?"
    )
    assert last_bar(" 50%|#####     | 5/10 [01:02:03<1:00:00,  1.2s/run]").done == 5
    assert last_bar("WARNING: no bar here\n") is None


def test_a_bar_cut_between_chunks_is_read_only_when_whole():
    text = "\rfig9:  40%|####      | 4/10 [00:08<00:12,  2.00s/run]"
    line = ProgressLine("multilevel_figures", io.StringIO())
    cut = text.index("<") + 3  # inside the ETA
    line.write(_tqdm_text(10, 3, desc="fig9"))
    line.write(text[:cut])
    assert line._shown.done == 3
    line.write(text[cut:])
    assert line._shown == BarState("fig9", 4, 10, "00:08", "00:12")


def test_progress_line_redraws_in_place_and_erases_itself():
    out = io.StringIO()
    line = ProgressLine("multilevel_figures", out)
    for chunk in _tqdm_text(3, 3, desc="fig12").split("\r"):
        line.write("\r" + chunk)
    line.write("stray warning on stderr\n")
    line.close()
    draws = out.getvalue().split("\r\x1b[K")
    assert draws[0] == "" and draws[-1] == ""
    assert draws[1].startswith("  multilevel_figures · fig12: 0/3 done, 00:00 elapsed, ETA ?")
    assert draws[-2].startswith("  multilevel_figures · fig12: 3/3 done")
    assert len(draws) == 1 + 4 + 1  # one draw per state (0..3 done), not per chunk


def test_no_bar_means_no_output():
    out = io.StringIO()
    line = ProgressLine("x", out)
    line.write("just a warning\n")
    line.close()
    assert out.getvalue() == ""


def test_in_a_log_progress_is_a_plain_line_now_and_then():
    text = _tqdm_text(5, 5, desc="fig12")
    for every, expected in ((float("inf"), ["0/5", "5/5"]), (0.0, [f"{i}/5" for i in range(6)])):
        out = io.StringIO()
        line = ProgressLine("multilevel_figures", out, live=False, every=every)
        for chunk in text.split("\r"):
            line.write("\r" + chunk)
        line.close()
        lines = out.getvalue().splitlines()
        assert "\r" not in out.getvalue() and "\x1b" not in out.getvalue()
        assert [ln.split("fig12: ")[1].split(" ")[0] for ln in lines] == expected
        assert all(ln.startswith("  multilevel_figures · fig12: ") for ln in lines)
