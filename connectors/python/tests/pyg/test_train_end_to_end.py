"""Proof that Fanout batches train a GNN: GraphSAGE (examples/train_graphsage.py) trained on cora from
the messages of the real job (deploy/bin/fanout-local, features and labels inside the messages) reaches
the test accuracy of full-batch training on the whole graph, within 2 points (mean over 3 model
seeds, test accuracy at the best validation epoch): once from the job's .samples files and once
pulled live from the channel of the running job.

Needs torch and torch_geometric (Debian's python3, see deploy/bin/fanout-torch-setup) and
../shared/data/cora; fails, never skips, without them."""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))
import train_graphsage as trainer  # noqa: E402  (the example is the code under test)

EPOCHS = 40
MODEL_SEEDS = (0, 1, 2)
BATCH = 35  # 140 training seeds -> 4 batches per epoch
JOB = dict(batch_size=BATCH, fanout="15,10", feature_dtype="uint8", seed=5)


@pytest.fixture(scope="module")
def cora():
    graph = trainer.load_graph(trainer.CORA)
    splits = trainer.split(graph.y, seed=0)
    reference = trainer.train_full_batch(graph, splits, MODEL_SEEDS, EPOCHS)
    return graph, splits, reference


def mean_selected_test(histories):
    return float(np.mean([trainer.selected_test_accuracy(h) for h in histories]))


def check_against_full_batch(histories, reference):
    assert len(histories) == len(MODEL_SEEDS)
    for history in histories:
        # every epoch of the job arrived whole: 140 seeds / 35 = 4 batches, each one step
        assert [row["steps"] for row in history] == [4] * EPOCHS
        assert history[-1]["loss"] < history[0]["loss"]
    sampled, full = mean_selected_test(histories), mean_selected_test(reference)
    print(f"test accuracy: sampled {sampled:.3f}, full-batch {full:.3f}")
    assert full > 0.70, f"the full-batch reference itself did not learn cora: {full:.3f}"
    assert abs(sampled - full) <= 0.02, f"sampled {sampled:.3f} vs full-batch {full:.3f}"


def test_split_is_planetoid_shaped(cora):
    graph, (train, val, test), _ = cora
    assert (len(train), len(val), len(test)) == (140, 500, 1000)
    assert np.bincount(graph.y[train].numpy()).tolist() == [20] * 7
    assert len(set(train.tolist()) | set(val.tolist()) | set(test.tolist())) == 1640


def test_graphsage_from_samples_files_matches_full_batch(cora, tmp_path):
    graph, splits, reference = cora
    histories = trainer.train_from_files(graph, splits, MODEL_SEEDS, EPOCHS, tmp_path, **JOB)
    check_against_full_batch(histories, reference)


def test_graphsage_from_the_live_channel_matches_full_batch(cora, tmp_path):
    graph, splits, reference = cora
    histories = trainer.train_from_channel(graph, splits, MODEL_SEEDS, EPOCHS, tmp_path, **JOB)
    check_against_full_batch(histories, reference)
