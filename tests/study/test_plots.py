"""Every study's PNG reads at a glance: no text overlaps another (bounding boxes in the
rendered figure), the title gives the episodes behind it, and drawing raises no
matplotlib warning, for the shapes the studies plot."""

import warnings

import pytest

pytest.importorskip("matplotlib")

from planloop.study.plots import (  # noqa: E402
    overflowing_labels,
    overlapping_texts,
    save_success_plot,
    success_figure,
)

TASKS = ["pick_and_place_simple", "look_at_obj_in_light", "pick_clean_then_place_in_recep"]
SHAPES = {
    "one point": ({"success": [("direct-zero-shot", 0, 3)]}, False),
    "task types and sizes, two long series": (
        {
            "CoinCollector-v0 openai:o3-mini: pddlego, detailed prompt, rollback, authors "
            "feedback, simulation retries 4, 20 steps": [
                *((f"{n} locations", 3, 4) for n in (3, 5, 7, 9, 11)),
                *((task, 1, 4) for task in TASKS),
            ],
            "ALFWorld-v0 groundtruth: pddlego, detailed prompt": [(t, 4, 4) for t in TASKS],
        },
        False,
    ),
    "an ordered budget": ({"pipeline": [(str(k), k, 10) for k in range(1, 6)]}, True),
    "no point": ({"success": []}, False),
}


@pytest.mark.parametrize("name", list(SHAPES))
def test_no_text_overlaps_another_and_no_warning(name):
    series, ordered = SHAPES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        figure = success_figure(
            series,
            "condition",
            "hazard: P(success at attempt k | failed before)",
            title="PDDLego+ on CoinCollector-v0 and ALFWorld-v0, openai:o3-mini: success",
            ordered=ordered,
        )
        assert overlapping_texts(figure) == []
        assert overflowing_labels(figure) == []
    episodes = sum(n for points in series.values() for _, _, n in points)
    assert f"(n = {episodes} episodes)" in figure.axes[0].get_title().replace("\n", " ")


def test_the_overlap_check_can_fail():
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots()
    axes.text(0.5, 0.5, "one label")
    axes.text(0.5, 0.5, "another label")
    assert ("one label", "another label") in overlapping_texts(figure)
    axes.set_ylabel("a label far longer than the axis it stands beside " * 3)
    assert overflowing_labels(figure)
    plt.close(figure)


def test_a_saved_plot_is_a_png(tmp_path):
    path = tmp_path / "success.png"
    assert save_success_plot(SHAPES["one point"][0], path, "condition", title="t")
    assert path.read_bytes().startswith(b"\x89PNG")


@pytest.mark.parametrize("count, turned", [(1, False), (8, True)])
def test_x_labels_turn_only_when_wider_than_their_slot(count, turned):
    series = {"s": [(f"pick_clean_then_place_{i}", 1, 2) for i in range(count)]}
    figure = success_figure(series, "task type", title="t")
    angles = {label.get_rotation() for label in figure.axes[0].get_xticklabels()}
    assert angles == ({90.0} if turned else {0.0})
    assert overlapping_texts(figure) == []


def test_a_curve_over_the_same_episodes_says_how_many_there_are():
    """Points that count the same episodes again (each iteration of a repair curve) do
    not add up to the episodes behind the plot: the caller says how many."""
    series = {"SVR": [("0", 3, 4), ("1", 4, 4)], "PSR": [("0", 2, 4), ("1", 3, 4)]}
    figure = success_figure(series, "iteration", title="curve", ordered=True, episodes=4)
    assert "(n = 4 episodes)" in figure.axes[0].get_title()


def test_the_count_labels_of_series_at_one_point_read_apart():
    """Two series with the same point, joined (ordered): their ``k/n`` labels were drawn
    one over the other ("0/10/1")."""
    from matplotlib.text import Annotation

    series = {"PDDLego+": [("3", 0, 10)], "PlanGen": [("3", 0, 1)]}
    figure = success_figure(series, "locations", title="two at one point", ordered=True)
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    labels = [t for t in figure.axes[0].texts if isinstance(t, Annotation)]
    assert [t.get_text() for t in labels] == ["0/10", "0/1"]
    first, second = (t.get_window_extent(renderer) for t in labels)
    assert not first.overlaps(second)
