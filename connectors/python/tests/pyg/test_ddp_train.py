"""Data-parallel training for real: examples/train_graphsage_ddp.py started with torch's own launcher
(``torch.distributed.run``, through examples/torchrun.py), 2 ranks, gloo on CPU, GraphSAGE on cora from the files of a job run with
``--trainers 2``: every rank takes the same number of steps in every epoch (the job pads the odd batch), nobody
hangs at an epoch's end, and the test accuracy is that of single-trainer training within 2 points (mean of 3 model
seeds, test accuracy at the best validation epoch), fed from the job's files and live from its channel (each rank
its own share). Fails, never skips, without torch, PyG or ../shared/data."""

import json
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
sys.path.insert(0, str(EXAMPLES))
import train_graphsage as trainer  # noqa: E402

EPOCHS = 40
BATCH = 30  # 140 training seeds -> 5 batches, padded to 6 for 2 trainers: 3 steps per rank per epoch


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def one_trainer(tmp_path_factory):
    """Single-trainer training on the same job's batches: the mean selected test accuracy of 3 model seeds."""
    graph = trainer.load_graph(trainer.CORA)
    splits = trainer.split(graph.y, seed=0)
    single = trainer.train_from_files(graph, splits, (0, 1, 2), EPOCHS, tmp_path_factory.mktemp("single"),
                                      batch_size=BATCH, fanout="15,10", feature_dtype="uint8", seed=5)
    return float(np.mean([trainer.selected_test_accuracy(h) for h in single]))


@pytest.mark.parametrize("feed", ["files", "channel"])
def test_two_rank_ddp_takes_equal_steps_and_matches_one_trainer(feed, one_trainer, tmp_path):
    result = tmp_path / "result.json"
    # examples/torchrun.py is torch.distributed.run itself, mended where Debian's torch 1.13 on Python 3.11 breaks it.
    proc = subprocess.run([sys.executable, str(EXAMPLES / "torchrun.py"), "--nproc_per_node", "2",
                           "--master_port", str(free_port()), str(EXAMPLES / "train_graphsage_ddp.py"),
                           "--feed", feed, "--epochs", str(EPOCHS), "--batch-size", str(BATCH), "--job-seed", "5",
                           "--result", str(result)],
                          capture_output=True, text=True, timeout=1200, cwd=tmp_path)
    assert proc.returncode == 0, f"DDP run failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-6000:]}"
    ddp = json.loads(result.read_text())
    assert ddp["world_size"] == 2 and len(ddp["models"]) == 3
    for model in ddp["models"]:
        assert model["steps_per_rank"] == [[3] * EPOCHS, [3] * EPOCHS]
    two = float(np.mean([m["test"] for m in ddp["models"]]))
    print(f"test accuracy ({feed}): 2 DDP ranks {two:.3f}, one trainer {one_trainer:.3f}")
    assert one_trainer > 0.70
    assert abs(two - one_trainer) <= 0.02, f"2 ranks {two:.3f} vs one trainer {one_trainer:.3f}"
