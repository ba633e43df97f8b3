"""planloop.study.progress: a redrawn bar on a terminal, plain lines elsewhere."""

import io

from planloop.study import Progress, Study, run_study
from planloop.study.progress import one_line


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
    assert progress.live and stream.getvalue() == "\r\033[K[........] 0/4 episodes, 0 failed, 0 s"
    progress.update(2, 1)
    progress.note("a failure")
    progress.update(4, 1)
    progress.close()
    bar = "[####....] 2/4 episodes, 1 failed, 0 s"
    assert stream.getvalue() == (
        f"\r\033[K[........] 0/4 episodes, 0 failed, 0 s\r\033[K{bar}"
        f"\r\033[Ka failure\n{bar}"
        "\r\033[K[########] 4/4 episodes, 1 failed, 0 s\n"
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
        "demo on Mystery-BW-v0: 1/3 episodes, 0 failed, 0 s",
        "demo on Mystery-BW-v0: 2/3 episodes, 0 failed, 0 s",
        "demo on Mystery-BW-v0: 3/3 episodes, 0 failed, 0 s",
    ]


def failing_half(env, job):
    if job.instance % 2:
        return {"won": False, "error": "server: 503 Service Unavailable", "error_kind": "server"}
    return {"won": True}


def test_the_studies_of_a_run_share_one_line_and_say_their_failures_once_at_the_end(tmp_path):
    stream = io.StringIO()
    with one_line(stream):
        for size in (3, 5):
            study = Study("demo", "Mystery-BW-v0", model="m", settings={"size": size})
            run_study(
                study,
                study.jobs([{}], range(4), 1),
                failing_half,
                out=tmp_path / str(size),
                stream=stream,
            )
    lines = stream.getvalue().splitlines()
    assert lines == [
        # the first failure of a kind as it happens, a line a study as it ends
        "instance 1 trial 0: server: 503 Service Unavailable",
        "study 1, demo on Mystery-BW-v0, m: 4/4 episodes; in all 4 episodes, 2 failed, 0 s",
        "study 2, demo on Mystery-BW-v0, m: 4/4 episodes; in all 8 episodes, 4 failed, 0 s",
        "4 episodes failed with server, e.g. instance 1 trial 0: server: 503 Service Unavailable",
    ]


def test_a_resumed_study_keeps_its_place_on_the_run_line(tmp_path):
    study = Study("demo", None, env_kwargs={"task_types": ["a", "b"]})
    jobs = study.jobs([{}], range(2), 1)
    run_study(study, jobs, lambda env, job: {"won": True}, out=tmp_path, stream=io.StringIO())
    stream = Terminal()
    with one_line(stream) as run:
        run_study(study, jobs, lambda env, job: {"won": True}, out=tmp_path, stream=stream)
        assert (run.studies, run.done, run.failed) == (1, 2, 0)
    assert stream.getvalue().startswith(
        "\r\033[K[##############################] study 1, "
        "demo (task_types=a+b): 2/2 episodes; in all 2 episodes"
    )
    assert stream.getvalue().endswith("\n")  # the line ended once, with the run
