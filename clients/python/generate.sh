#!/bin/sh
# Regenerates the committed gRPC stubs (verdict/v1/score_pb2.py, .pyi and score_pb2_grpc.py) from
# proto/, into clients/python or into the directory given as the first argument.
#
# Needs a protoc new enough for proto3 `optional` (>= 3.15) and the gRPC Python plugin. On Debian 12
# those are `protobuf-compiler` (3.21, the same version as python3-protobuf) and
# `protobuf-compiler-grpc`; Debian's python3-grpc-tools bundles protoc 3.5, which is too old, so it is
# only used when it is newer than that (e.g. a pip-installed grpcio-tools).
set -eu
client=$(cd "$(dirname "$0")" && pwd)
proto="$client/../../proto"
here=${1:-$client}
mkdir -p "$here"
python=${PYTHON:-/usr/bin/python3}

if command -v protoc >/dev/null 2>&1 && command -v grpc_python_plugin >/dev/null 2>&1; then
  protoc -I "$proto" --python_out="$here" --pyi_out="$here" --grpc_python_out="$here" \
    --plugin=protoc-gen-grpc_python="$(command -v grpc_python_plugin)" verdict/v1/score.proto
elif "$python" -m grpc_tools.protoc --version 2>/dev/null | grep -qv 'libprotoc 3\.[0-9]\.'; then
  "$python" -m grpc_tools.protoc -I "$proto" --python_out="$here" --pyi_out="$here" --grpc_python_out="$here" verdict/v1/score.proto
else
  echo "generate.sh: need protoc >= 3.15 with grpc_python_plugin (apt-get install protobuf-compiler protobuf-compiler-grpc) or grpcio-tools" >&2
  exit 1
fi
echo "generated $here/verdict/v1/score_pb2.py, score_pb2.pyi and score_pb2_grpc.py"
