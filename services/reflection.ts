import type * as grpc from '@grpc/grpc-js';
import { create, toBinary } from '@bufbuild/protobuf';
import type { GenFile } from '@bufbuild/protobuf/codegenv2';
import { FileDescriptorProtoSchema, file_google_protobuf_struct } from '@bufbuild/protobuf/wkt';
import { ReflectionService } from '@grpc/reflection';
import { file_grpc_reflection_v1_reflection } from './wire/gen/grpc/reflection/v1/reflection_pb';
import { file_grpc_reflection_v1alpha_reflection } from './wire/gen/grpc/reflection/v1alpha/reflection_pb';
import { file_health_v1_health } from './wire/gen/health/v1/health_pb';
import { file_verdict_v1_score } from './wire/gen/verdict/v1/score_pb';

/**
 * Server reflection that tools can use, served from the file descriptors protoc compiled into the
 * generated code (`npm run proto`): real file names, fully qualified types, map entries and
 * `dependency` lists exactly as protoc writes them, so a client that adds them to a descriptor pool
 * resolves `google.protobuf.Struct` and can `describe`-then-call. The definition covers the Scorer,
 * health and reflection itself, so all three are listed.
 */

/**
 * grpc-health-check ships health.proto under `health/v1/`, which is the name protoc gives it here;
 * the file's canonical name (and the one clients import) is `grpc/health/v1/health.proto`.
 */
const SERVED_NAME: ReadonlyMap<GenFile, string> = new Map([[file_health_v1_health, 'grpc/health/v1/health.proto']]);

const SERVED_FILES: readonly GenFile[] = [
  file_verdict_v1_score,
  file_google_protobuf_struct,
  file_health_v1_health,
  file_grpc_reflection_v1_reflection,
  file_grpc_reflection_v1alpha_reflection,
];

/** The encoded FileDescriptorProto of every served file. */
export function servedFileDescriptors(): Buffer[] {
  return SERVED_FILES.map((file) => {
    const proto = create(FileDescriptorProtoSchema, { ...file.proto, name: SERVED_NAME.get(file) ?? file.proto.name });
    return Buffer.from(toBinary(FileDescriptorProtoSchema, proto));
  });
}

/** Adds server reflection (v1 and v1alpha) for the Scorer, health and reflection services. */
export function addReflection(server: grpc.Server): void {
  // ReflectionService reads only `fileDescriptorProtos` of the package definition it is given; one
  // entry carrying every file is enough.
  const definition = { 'verdict.reflection.files': { fileDescriptorProtos: servedFileDescriptors() } };
  new ReflectionService(definition as unknown as ConstructorParameters<typeof ReflectionService>[0]).addToServer(server);
}
