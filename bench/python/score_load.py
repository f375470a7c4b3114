"""Sends one ScoreRequest, already serialized, N times with K calls in flight through grpcio (C++ core,
C++ protobuf on Debian), decoding each reply into the generated ScoreResponse as a trainer's client
would. Used by bench/serving.ts for the "Python grpcio client" rows; prints one JSON line.

    python3 score_load.py TARGET REQUEST_FILE CALLS IN_FLIGHT [stream|batches]

With `stream`, each call is a ScoreStream read to its end, each result parsed as it comes; with
`batches`, a ScoreStreamBatches call, each message (a batch of results) parsed as it comes.
"""

import json
import resource
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace

import grpc

from verdict.v1 import score_pb2

MAX_MESSAGE = 256 * 1024 * 1024


def main() -> None:
    target, request_file, calls, in_flight = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    mode = sys.argv[5] if len(sys.argv) > 5 else "unary"
    if mode not in ("unary", "stream", "batches"):
        raise SystemExit(f"unknown mode {mode!r}: stream or batches")
    with open(request_file, "rb") as f:
        request = f.read()
    options = [("grpc.max_send_message_length", MAX_MESSAGE), ("grpc.max_receive_message_length", MAX_MESSAGE)]
    with grpc.insecure_channel(target, options=options) as channel:
        # Bytes in as they are (the request was built once, outside the timing); replies parsed by protobuf.
        if mode == "unary":
            score = channel.unary_unary(
                "/verdict.v1.Scorer/Score",
                request_serializer=None,
                response_deserializer=score_pb2.ScoreResponse.FromString,
            )
        else:
            # ScoreStream: one ScoreResult a message; ScoreStreamBatches: a ScoreResponse of several.
            method, message = ("ScoreStream", score_pb2.ScoreResult) if mode == "stream" else ("ScoreStreamBatches", score_pb2.ScoreResponse)
            messages_of = channel.unary_stream(f"/verdict.v1.Scorer/{method}", request_serializer=None, response_deserializer=message.FromString)

            def score(body):
                if mode == "stream":
                    return SimpleNamespace(results=list(messages_of(body)))
                return SimpleNamespace(results=[r for batch in messages_of(body) for r in batch.results])
        results = len(score(request).results)  # warm-up: connection, server threads
        with ThreadPoolExecutor(in_flight) as pool:
            cpu = resource.getrusage(resource.RUSAGE_SELF)
            start = time.perf_counter()
            replies = list(pool.map(lambda _: score(request), range(calls)))
            seconds = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_SELF)
    if any(len(r.results) != results for r in replies):
        raise SystemExit("a reply had the wrong number of results")
    cpu_seconds = (after.ru_utime - cpu.ru_utime) + (after.ru_stime - cpu.ru_stime)
    print(json.dumps({"seconds": seconds, "cpuSeconds": cpu_seconds, "resultsPerCall": results}))


if __name__ == "__main__":
    main()
