import { join } from 'node:path';
import ts from 'typescript';
import { packageRoot } from '../../services/paths';

/*
 * kubernetes-models' validate() checks the types of the fields it knows and ignores the rest, so a
 * misspelt field (`initialDelaySecond`, `resource`) passes. Its TypeScript declarations do list
 * every field of every API type: this walks a rendered object alongside its model's interface,
 * with the TypeScript type checker, and names each field the API type does not declare.
 */

type Kinded = { apiVersion: string; kind: string };

/** The kubernetes-models module of an apiVersion and kind, e.g. `kubernetes-models/apps/v1/Deployment`. */
export function modelModule({ apiVersion, kind }: Kinded): string {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  return `kubernetes-models/${group ? `${group}/` : ''}${version}/${kind}`;
}

/**
 * A checker for objects of the kinds of `objects`: one TypeScript Program for them all (building it
 * is the slow part, some hundreds of ms), answering for each object the paths of its unknown fields.
 */
export function unknownFieldsChecker(objects: Kinded[]): (o: Kinded) => string[] {
  const modules = [...new Set(objects.map(modelModule))];
  // A source that names each model's interface (IDeployment for Deployment), resolved from the
  // package root as require() resolves modelModule (Node16, CommonJS: package.json "exports").
  const file = join(packageRoot(), '__known_fields__.ts');
  const text = modules.map((m, i) => `export type T${i} = import('${m}').I${m.slice(m.lastIndexOf('/') + 1)};\n`).join('');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    types: [],
    lib: ['lib.es5.d.ts'], // arrays need Array<T>; the newer libs only cost time
    module: ts.ModuleKind.Node16,
    moduleResolution: ts.ModuleResolutionKind.Node16,
  };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (name, ...rest) =>
    name === file ? ts.createSourceFile(name, text, ts.ScriptTarget.ES2022) : getSourceFile(name, ...rest);
  host.fileExists = (name) => name === file || fileExists(name);
  host.readFile = (name) => (name === file ? text : readFile(name));
  const program = ts.createProgram([file], options, host);
  // An import that resolves to nothing types as `any`, which would accept every field: fail instead.
  const errors = program.getSemanticDiagnostics(program.getSourceFile(file));
  if (errors.length) throw new Error(ts.formatDiagnostics(errors, host));
  const checker = program.getTypeChecker();
  const aliases = program.getSourceFile(file)!.statements.filter(ts.isTypeAliasDeclaration);
  const types = new Map(modules.map((m, i) => [m, checker.getTypeAtLocation(aliases[i]!.name)]));

  /** Pushes onto `out` the paths under `path` of the fields of `value` that `type` does not declare. */
  function walk(value: unknown, declared: ts.Type, path: string, out: string[]): void {
    const type = checker.getNonNullableType(declared); // optional fields are `T | undefined`
    // Primitives are validate()'s business; `any` and `object` (free-form fields) allow anything.
    if (value === null || typeof value !== 'object') return;
    if (type.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown | ts.TypeFlags.NonPrimitive)) return;
    if (type.isUnion()) {
      // A value fits a union when it fits a member: report the closest member's unknown fields (none if one fits).
      const tries = type.types
        .filter((t) => t.flags & (ts.TypeFlags.Object | ts.TypeFlags.Intersection))
        .map((t) => {
          const unknown: string[] = [];
          walk(value, t, path, unknown);
          return unknown;
        });
      const best = tries.sort((a, b) => a.length - b.length)[0];
      if (best) out.push(...best);
      return;
    }
    if (Array.isArray(value)) {
      const element = checker.getIndexTypeOfType(type, ts.IndexKind.Number);
      if (element) value.forEach((v, i) => walk(v, element, `${path}[${i}]`, out));
      return;
    }
    for (const [key, v] of Object.entries(value)) {
      const at = path ? `${path}.${key}` : key;
      // A declared property, else a map's index signature (labels, annotations, ConfigMap data).
      const property = checker.getPropertyOfType(type, key);
      const field = property ? checker.getTypeOfSymbol(property) : checker.getIndexTypeOfType(type, ts.IndexKind.String);
      if (field) walk(v, field, at, out);
      else out.push(at);
    }
  }

  return (o) => {
    const type = types.get(modelModule(o));
    if (!type) throw new Error(`${o.apiVersion} ${o.kind} was not among the kinds the checker was built for`);
    const out: string[] = [];
    walk(o, type, '', out);
    return out;
  };
}
