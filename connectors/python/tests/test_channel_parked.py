"""A trainer slower than the job: messages of later epochs wait in the client (parked, already
acknowledged), and the endpoints may end those epochs, or their whole stream, before the trainer gets
there. The parked messages must still be handed out in their epoch, not dropped as copies."""

import threading

from channel_server import EndpointServer, sample_blob
from fanout_client import ChannelClient


def test_parked_messages_survive_their_epoch_being_ended_before_the_trainer_gets_there():
    # Endpoint 0 sends epochs 0..2 at once and ends its stream; endpoint 1 holds its only message
    # (epoch 0) back, then ends epochs 1 and 2 in one frame (END_OF_EPOCH(2): it had nothing in them),
    # while the trainer is still in epoch 0 with epochs 1 and 2 parked.
    a = EndpointServer([(0, 0, 2, sample_blob(0, 0)), (1, 0, 1, sample_blob(1, 0)), (2, 0, 1, sample_blob(2, 0))],
                       index=0, num_endpoints=2, epoch_ends={1: 0, 2: 1, 3: 2}).start()
    hold = threading.Event()
    b = EndpointServer([(0, 1, 2, sample_blob(0, 1, 1))], index=1, num_endpoints=2, hold=hold,
                       epoch_ends={1: 2}).start()
    seen = []
    try:
        with ChannelClient(endpoints=[a.address, b.address], connect_timeout=10) as client:
            for epoch in client.epochs():
                for msg in epoch:
                    seen.append((epoch.epoch, msg.epoch, msg.batch_id))
                    if len(seen) == 1:
                        threading.Timer(1.0, hold.set).start()  # endpoint 0 is done by then
    finally:
        hold.set()
        a.close()
        b.close()
    assert sorted(seen[:2]) == [(0, 0, 0), (0, 0, 1)]
    assert seen[2:] == [(1, 1, 0), (2, 2, 0)]
    assert client.duplicates == 0
