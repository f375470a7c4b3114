"""A client that knows nothing of Verdict: it learns the Scorer from server reflection and calls it.

It knows only the reflection protocol, from grpc/reflection/v1/reflection.proto compiled by protoc
into a FileDescriptorSet (argv[2]). Prints JSON: the services listed, the files served with their
imports, and the Score reply to a request built from the reflected descriptors alone.
"""

import json
import sys

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, json_format, message_factory


def message_classes(pool: descriptor_pool.DescriptorPool, *names: str) -> list:
    factory = message_factory.MessageFactory(pool)
    return [factory.GetPrototype(pool.FindMessageTypeByName(name)) for name in names]


def main(target: str, reflection_set: str) -> None:
    with open(reflection_set, "rb") as f:
        protocol = descriptor_pb2.FileDescriptorSet.FromString(f.read())
    protocol_pool = descriptor_pool.DescriptorPool()
    for file in protocol.file:
        protocol_pool.Add(file)
    Request, Response = message_classes(
        protocol_pool, "grpc.reflection.v1.ServerReflectionRequest", "grpc.reflection.v1.ServerReflectionResponse"
    )
    channel = grpc.insecure_channel(target)
    info = channel.stream_stream(
        "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
        request_serializer=Request.SerializeToString,
        response_deserializer=Response.FromString,
    )

    def ask(**fields):
        reply = next(info(iter([Request(**fields)]), timeout=30))
        if reply.HasField("error_response"):
            raise RuntimeError(f"reflection error {reply.error_response.error_code}: {reply.error_response.error_message}")
        return reply

    services = sorted(s.name for s in ask(list_services="*").list_services_response.service)

    # The Scorer's file and everything it imports; a file named in `dependency` but not sent is asked for.
    files: dict = {}

    def learn(blobs) -> None:
        for blob in blobs:
            proto = descriptor_pb2.FileDescriptorProto.FromString(blob)
            files.setdefault(proto.name, proto)

    learn(ask(file_containing_symbol="verdict.v1.Scorer").file_descriptor_response.file_descriptor_proto)
    pool = descriptor_pool.DescriptorPool()
    added: set = set()

    def add(name: str) -> None:
        if name in added:
            return
        if name not in files:
            learn(ask(file_by_filename=name).file_descriptor_response.file_descriptor_proto)
        for dependency in files[name].dependency:
            add(dependency)
        pool.Add(files[name])
        added.add(name)

    for name in list(files):
        add(name)

    method = pool.FindServiceByName("verdict.v1.Scorer").methods_by_name["Score"]
    ScoreRequest, ScoreResponse = message_classes(pool, method.input_type.full_name, method.output_type.full_name)
    request = json_format.ParseDict(
        {"samples": [{"id": "r1", "verifier": "qa", "response": "\\boxed{C}", "label": {"choice": "C"}}]}, ScoreRequest()
    )
    score = channel.unary_unary(
        "/verdict.v1.Scorer/Score",
        request_serializer=ScoreRequest.SerializeToString,
        response_deserializer=ScoreResponse.FromString,
    )
    reply = score(request, timeout=30)
    print(
        json.dumps(
            {
                "services": services,
                "files": {name: sorted(proto.dependency) for name, proto in files.items()},
                "reply": json_format.MessageToDict(reply),
            }
        )
    )


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
