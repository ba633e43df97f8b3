"""planloop.study.progress: a redrawn bar on a terminal, plain lines elsewhere."""

import io

from planloop.study import Progress, Study, run_study


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_plain_lines_when_not_a_terminal():
    stream = io.StringIO()
    progress = Progress(5, 2, stream)
    assert not progress.live and stream.getvalue() == ""
    progress.update(3, 0)
    progress.note("instance 3 trial 0 (horizon=1): server: 503")
    progress.update(4, 1)
    progress.close()
    assert "\r" not in stream.getvalue()
    assert stream.getvalue().splitlines() == [
        "3/5 episodes, 0 failed, 0 s",
        "instance 3 trial 0 (horizon=1): server: 503",
        "4/5 episodes, 1 failed, 0 s",
    ]


def test_a_bar_redrawn_on_a_terminal():
    stream = Terminal()
    progress = Progress(4, 0, stream, width=8)
    assert progress.live and stream.getvalue() == "\r[........] 0/4 episodes, 0 failed, 0 s"
    progress.update(2, 1)
    progress.note("a failure")
    progress.update(4, 1)
    progress.close()
    bar = "[####....] 2/4 episodes, 1 failed, 0 s"
    assert stream.getvalue() == (
        f"\r[........] 0/4 episodes, 0 failed, 0 s\r{bar}"
        f"\r\033[Ka failure\n{bar}"
        "\r[########] 4/4 episodes, 1 failed, 0 s\n"
    )


def test_a_study_prints_one_line_per_episode_off_a_terminal(tmp_path):
    study = Study("demo", "Mystery-BW-v0")
    stream = io.StringIO()
    run_study(
        study,
        study.jobs([{}], range(3), 1),
        lambda env, job: {"won": True},
        out=tmp_path,
        workers=2,
        stream=stream,
    )
    assert stream.getvalue().splitlines()[1:] == [
        "1/3 episodes, 0 failed, 0 s",
        "2/3 episodes, 0 failed, 0 s",
        "3/3 episodes, 0 failed, 0 s",
    ]
