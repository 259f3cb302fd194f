// Validates Kubernetes objects against the Kubernetes schemas (kubernetes-models ships as ESM
// only, so the suites run it in a child process). Reads a JSON array of objects on stdin and
// prints a JSON array with, per object, null or the validation error.
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Namespace, Secret, Service } from 'kubernetes-models/v1';

const MODELS = {
  'v1/Namespace': Namespace,
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
};

let input = '';
for await (const chunk of process.stdin) input += chunk;
const results = JSON.parse(input).map((object) => {
  const Model = MODELS[`${object.apiVersion}/${object.kind}`];
  if (!Model) return `no schema for ${object.apiVersion} ${object.kind}`;
  try {
    new Model(object).validate();
    return null;
  } catch (error) {
    return String(error.message ?? error);
  }
});
process.stdout.write(JSON.stringify(results));
