import path from 'node:path';
import type * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';
import { protoPath as healthProtoPath } from 'grpc-health-check';
import { FileDescriptorProto, type IFileDescriptorProto } from 'protobufjs/ext/descriptor';
import { PROTO_ROOT, SCORE_PROTO } from './grpc/proto';

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

type Message = NonNullable<IFileDescriptorProto['messageType']>[number];

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

/** `fields` → `FieldsEntry`, `label_map` → `LabelMapEntry`: the name protoc gives a map field's entry type. */
function mapEntryName(fieldName: string): string {
  return fieldName.replace(/(?:^|_)([a-z0-9])/g, (_m, c: string) => c.toUpperCase()) + 'Entry';
}

/**
 * protobufjs names a map field's entry type after the field (`Fields`); protoc, and every descriptor
 * pool that checks it, want `FieldsEntry`. Renames the entry types and the fields that use them.
 */
function renameMapEntries(messages: Message[] | null | undefined): void {
  for (const message of messages ?? []) {
    for (const nested of message.nestedType ?? []) {
      if (!nested.options?.mapEntry) continue;
      const field = (message.field ?? []).find((f) => f.typeName === nested.name || f.typeName?.endsWith(`.${nested.name}`));
      if (!field?.name) continue;
      nested.name = mapEntryName(field.name);
      field.typeName = nested.name;
    }
    renameMapEntries(message.nestedType);
  }
}

/**
 * protobufjs carries its own copy of the well-known types, with camelCase field names
 * (`stringValue`); the real struct.proto says `string_value`, which is what clients' JSON mappings
 * and pools expect. Well-known field names are all lower snake case, so the conversion is exact.
 */
function snakeCaseFields(messages: Message[] | null | undefined): void {
  for (const message of messages ?? []) {
    for (const field of message.field ?? []) {
      if (field.name) field.name = field.name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    }
    snakeCaseFields(message.nestedType);
  }
}

/** Every message and enum, fully qualified (`.google.protobuf.Struct.FieldsEntry`) → the file defining it. */
function typeOwners(files: Map<string, IFileDescriptorProto>): Map<string, string> {
  const owners = new Map<string, string>();
  for (const [name, file] of files) {
    const walk = (scope: string, messages: Message[] | null | undefined, enums: IFileDescriptorProto['enumType']) => {
      for (const e of enums ?? []) owners.set(`${scope}.${e.name}`, name);
      for (const m of messages ?? []) {
        owners.set(`${scope}.${m.name}`, name);
        walk(`${scope}.${m.name}`, m.nestedType, m.enumType);
      }
    };
    walk(file.package ? `.${file.package}` : '', file.messageType, file.enumType);
  }
  return owners;
}

/** Resolves a type reference as protoc does: absolute as is, else from the innermost scope outwards. */
function qualify(reference: string, scope: string, owners: Map<string, string>): string {
  if (reference.startsWith('.')) return reference;
  for (let at = scope; ; at = at.slice(0, Math.max(0, at.lastIndexOf('.')))) {
    const candidate = `${at}.${reference}`;
    if (owners.has(candidate)) return candidate;
    if (at === '') throw new Error(`reflection: cannot resolve type "${reference}" from "${scope}"`);
  }
}

/**
 * Rewrites every type reference of `file` fully qualified (protobufjs leaves them relative) and
 * returns the files they live in: its `dependency` list, as its `import` lines would give.
 */
function qualifyReferences(name: string, file: IFileDescriptorProto, owners: Map<string, string>): string[] {
  const deps = new Set<string>();
  const resolve = (reference: string | null | undefined, scope: string): string | undefined => {
    if (!reference) return undefined;
    const full = qualify(reference, scope, owners);
    const owner = owners.get(full);
    if (owner !== undefined && owner !== name) deps.add(owner);
    return full;
  };
  const packageScope = file.package ? `.${file.package}` : '';
  const walk = (scope: string, messages: Message[] | null | undefined) => {
    for (const m of messages ?? []) {
      const inner = `${scope}.${m.name}`;
      for (const field of m.field ?? []) {
        const full = resolve(field.typeName, inner);
        if (full !== undefined) field.typeName = full;
      }
      walk(inner, m.nestedType);
    }
  };
  walk(packageScope, file.messageType);
  for (const service of file.service ?? []) {
    for (const method of service.method ?? []) {
      const input = resolve(method.inputType, packageScope);
      const output = resolve(method.outputType, packageScope);
      if (input !== undefined) method.inputType = input;
      if (output !== undefined) method.outputType = output;
    }
  }
  return [...deps].sort();
}

/**
 * A package definition holding the served files with real names and imports, for ReflectionService.
 * Loaded with the proto's own field names (`string_value`, `group_id`): the server's definition
 * camelCases them, and a descriptor with those names would not match the wire's JSON or the stubs.
 */
export function reflectionDefinition(): protoLoader.PackageDefinition {
  const loaderOptions: protoLoader.Options = { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true };
  const score = protoLoader.loadSync(SCORE_PROTO, { ...loaderOptions, includeDirs: [PROTO_ROOT] });
  const health = protoLoader.loadSync(healthProtoPath, loaderOptions);
  const reflection = protoLoader.loadSync(
    ['grpc/reflection/v1/reflection.proto', 'grpc/reflection/v1alpha/reflection.proto'],
    { ...loaderOptions, includeDirs: [REFLECTION_PROTO_ROOT] },
  );
  const files = collectFiles([score, health, reflection]);
  for (const file of files.values()) {
    if (file.package === 'google.protobuf') snakeCaseFields(file.messageType);
    renameMapEntries(file.messageType);
  }
  const owners = typeOwners(files);
  const encoded: Buffer[] = [];
  for (const [name, file] of files) {
    const withDeps = FileDescriptorProto.fromObject({ ...file, dependency: qualifyReferences(name, file, owners) });
    encoded.push(Buffer.from(FileDescriptorProto.encode(withDeps).finish()));
  }
  // ReflectionService reads only `fileDescriptorProtos`; one entry carrying every file is enough.
  return { 'verdict.reflection.files': { fileDescriptorProtos: encoded } } as unknown as protoLoader.PackageDefinition;
}

/** Adds server reflection (v1 and v1alpha) for the Scorer, health and reflection services. */
export function addReflection(server: grpc.Server): void {
  new ReflectionService(reflectionDefinition()).addToServer(server);
}
