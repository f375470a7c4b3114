import path from 'node:path';
import type * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';
import { protoPath as healthProtoPath } from 'grpc-health-check';
import { FileDescriptorProto, type IFileDescriptorProto } from 'protobufjs/ext/descriptor';

/**
 * Server reflection that tools can use. @grpc/reflection indexes the descriptors proto-loader builds,
 * and those are one file per package (`verdict_v1.proto`, `google_protobuf.proto`) with no
 * `dependency` list: a client that adds them to a descriptor pool cannot resolve
 * `google.protobuf.Struct`, so `describe`-then-call fails. It also lists only the services of the
 * definition it is given. Here every served file gets its real path and the imports its types
 * use, and the definition covers the Scorer, health and reflection itself, so all three are listed.
 */

const REFLECTION_PROTO_ROOT = path.join(path.dirname(require.resolve('@grpc/reflection')), '..', 'proto');

/** The file each served package comes from: proto-loader merges a package into one file, this names it. */
const FILE_OF_PACKAGE: Record<string, string> = {
  'verdict.v1': 'verdict/v1/score.proto',
  'google.protobuf': 'google/protobuf/struct.proto',
  'grpc.health.v1': 'grpc/health/v1/health.proto',
  'grpc.reflection.v1': 'grpc/reflection/v1/reflection.proto',
  'grpc.reflection.v1alpha': 'grpc/reflection/v1alpha/reflection.proto',
};

interface TypeOwner {
  file: string;
}

function collectFiles(definitions: protoLoader.PackageDefinition[]): Map<string, IFileDescriptorProto> {
  const files = new Map<string, IFileDescriptorProto>();
  for (const definition of definitions) {
    for (const entry of Object.values(definition)) {
      const encoded = (entry as { fileDescriptorProtos?: Buffer[] }).fileDescriptorProtos;
      for (const bytes of encoded ?? []) {
        const file = FileDescriptorProto.toObject(FileDescriptorProto.decode(bytes)) as IFileDescriptorProto;
        const name = FILE_OF_PACKAGE[file.package ?? ''];
        if (name === undefined) throw new Error(`reflection: no file name known for package "${file.package}"`);
        if (!files.has(name)) files.set(name, { ...file, name });
      }
    }
  }
  return files;
}

/** Fully-qualified `.pkg.Message` / `.pkg.Enum` names (nested too) → the file that defines them. */
function typeOwners(files: Map<string, IFileDescriptorProto>): Map<string, TypeOwner> {
  const owners = new Map<string, TypeOwner>();
  for (const [name, file] of files) {
    const walk = (prefix: string, messages: IFileDescriptorProto['messageType'], enums: IFileDescriptorProto['enumType']) => {
      for (const e of enums ?? []) owners.set(`${prefix}.${e.name}`, { file: name });
      for (const m of messages ?? []) {
        owners.set(`${prefix}.${m.name}`, { file: name });
        walk(`${prefix}.${m.name}`, m.nestedType, m.enumType);
      }
    };
    walk(file.package ? `.${file.package}` : '', file.messageType, file.enumType);
  }
  return owners;
}

/** The files whose types `file` refers to: its `dependency` list, as `import` lines would give. */
function dependenciesOf(name: string, file: IFileDescriptorProto, owners: Map<string, TypeOwner>): string[] {
  const deps = new Set<string>();
  const use = (typeName: string | null | undefined) => {
    const owner = typeName ? owners.get(typeName.startsWith('.') ? typeName : `.${typeName}`) : undefined;
    if (owner && owner.file !== name) deps.add(owner.file);
  };
  const walk = (messages: IFileDescriptorProto['messageType']) => {
    for (const m of messages ?? []) {
      for (const field of m.field ?? []) use(field.typeName);
      walk(m.nestedType);
    }
  };
  walk(file.messageType);
  for (const service of file.service ?? []) {
    for (const method of service.method ?? []) {
      use(method.inputType);
      use(method.outputType);
    }
  }
  return [...deps].sort();
}

/** A package definition holding the served files with real names and imports, for ReflectionService. */
export function reflectionDefinition(scoreDefinition: protoLoader.PackageDefinition): protoLoader.PackageDefinition {
  const loaderOptions: protoLoader.Options = { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true };
  const health = protoLoader.loadSync(healthProtoPath, loaderOptions);
  const reflection = protoLoader.loadSync(
    ['grpc/reflection/v1/reflection.proto', 'grpc/reflection/v1alpha/reflection.proto'],
    { ...loaderOptions, includeDirs: [REFLECTION_PROTO_ROOT] },
  );
  const files = collectFiles([scoreDefinition, health, reflection]);
  const owners = typeOwners(files);
  const encoded: Buffer[] = [];
  for (const [name, file] of files) {
    const withDeps = FileDescriptorProto.fromObject({ ...file, dependency: dependenciesOf(name, file, owners) });
    encoded.push(Buffer.from(FileDescriptorProto.encode(withDeps).finish()));
  }
  // ReflectionService reads only `fileDescriptorProtos`; one entry carrying every file is enough.
  return { 'verdict.reflection.files': { fileDescriptorProtos: encoded } } as unknown as protoLoader.PackageDefinition;
}

/** Adds server reflection (v1 and v1alpha) for the Scorer, health and reflection services. */
export function addReflection(server: grpc.Server, scoreDefinition: protoLoader.PackageDefinition): void {
  new ReflectionService(reflectionDefinition(scoreDefinition)).addToServer(server);
}
