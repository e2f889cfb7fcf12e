"""Control messages. A channel carries envelopes ``(seq, wm, payload)``: a per-channel sequence
number, the sender's watermark and a data tuple or a ``Marker``."""

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Marker:
    """The marker ending mini-batch ``boundary`` (records with ts < boundary · batch interval).

    It is a Barrier of Algorithm 1 under order-preserving processing; with ``ckpt`` set it is
    also the checkpoint punctuation P_ckpt of Section 4.1, and ``eos`` marks the end of stream.
    """

    boundary: int
    ckpt: int | None = None
    eos: bool = False
