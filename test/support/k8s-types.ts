import { join } from 'node:path';
import ts from 'typescript';

/* eslint-disable @typescript-eslint/no-explicit-any -- rendered manifests are read as plain data */
type K8sObject = Record<string, any>;

/** The kubernetes-types module and interface of each kind the manifests use. */
const TYPES: Record<string, [module: string, type: string]> = {
  'v1/Namespace': ['kubernetes-types/core/v1', 'Namespace'],
  'v1/ConfigMap': ['kubernetes-types/core/v1', 'ConfigMap'],
  'v1/Secret': ['kubernetes-types/core/v1', 'Secret'],
  'v1/Service': ['kubernetes-types/core/v1', 'Service'],
  'apps/v1/Deployment': ['kubernetes-types/apps/v1', 'Deployment'],
  'batch/v1/Job': ['kubernetes-types/batch/v1', 'Job'],
  'autoscaling/v2/HorizontalPodAutoscaler': ['kubernetes-types/autoscaling/v2', 'HorizontalPodAutoscaler'],
  'policy/v1/PodDisruptionBudget': ['kubernetes-types/policy/v1', 'PodDisruptionBudget'],
  'networking.k8s.io/v1/NetworkPolicy': ['kubernetes-types/networking/v1', 'NetworkPolicy'],
};

/**
 * Per object, null or the fields the Kubernetes API types do not know or type differently.
 * The JSON schemas behind kubernetes-models accept any unknown field (the API server prunes or
 * rejects them only when applied), so a misspelt `readinesProbe` or a field at the wrong level
 * would pass them. Each object is written as a TypeScript object literal typed with the API's
 * own interface (kubernetes-types, generated from the Kubernetes OpenAPI document) and compiled:
 * excess-property checks name every unknown field, at any depth.
 */
export function typeErrors(objects: K8sObject[]): (string | null)[] {
  const fileName = join(__dirname, '..', '__rendered-manifests__.ts');
  const modules = [...new Set(Object.values(TYPES).map(([module]) => module))];
  let source = modules.map((module, i) => `import type * as m${i} from '${module}';\n`).join('');
  const spans: [start: number, end: number][] = [];
  const results: (string | null)[] = objects.map((object, i) => {
    const kind = TYPES[`${object.apiVersion}/${object.kind}`];
    if (!kind) return `no type for ${object.apiVersion} ${object.kind}`;
    const start = source.length;
    source += `export const object${i}: m${modules.indexOf(kind[0])}.${kind[1]} = ${JSON.stringify(object, null, 1)};\n`;
    spans[i] = [start, source.length];
    return null;
  });

  const host = ts.createCompilerHost({});
  const readFile = host.readFile.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (name) => (name === fileName ? source : readFile(name));
  host.fileExists = (name) => name === fileName || ts.sys.fileExists(name);
  host.getSourceFile = (name, languageVersion, ...rest) =>
    name === fileName
      ? ts.createSourceFile(name, source, languageVersion)
      : getSourceFile(name, languageVersion, ...rest);
  const program = ts.createProgram({
    rootNames: [fileName],
    // ES5's library is all plain data needs, and the smallest to load.
    options: { strict: true, noEmit: true, types: [], lib: ['lib.es5.d.ts'], target: ts.ScriptTarget.ES2022 },
    host,
  });

  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ');
    const at = diagnostic.start ?? -1;
    const index = spans.findIndex((span) => span && at >= span[0] && at < span[1]);
    if (index < 0) throw new Error(`the manifest types do not compile: ${message}`);
    const line = source.slice(source.lastIndexOf('\n', at) + 1, source.indexOf('\n', at)).trim();
    results[index] = [results[index], `${message} (at ${line})`].filter(Boolean).join('; ');
  }
  return results;
}
