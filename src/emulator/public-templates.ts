// The platform's public templates (official, verified, community), as `GET /v2/catalog/templates`
// lists them, and as any account deploys from them by id (runpod-python and runpodctl create pods
// from `runpod-ubuntu` and the PyTorch template by default).
// Below the platform (platform.ts), which deploys from them and re-exports the template's shape.

export interface EmulatedTemplate {
  id: string;
  name: string;
  imageName: string;
  category: string;
  containerDiskInGb: number;
  volumeInGb: number;
  volumeMountPath: string;
  env: Record<string, string>;
  ports: string[];
  isPublic: boolean;
  isServerless: boolean;
  readme: string;
  dockerEntrypoint: string[];
  dockerStartCmd: string[];
  containerRegistryAuthId?: string | undefined;
}

function template(id: string, name: string, imageName: string, category: string, ports: string[]): EmulatedTemplate {
  return { id, name, imageName, category, containerDiskInGb: 50, volumeInGb: 20, volumeMountPath: '/workspace', env: {}, ports, isPublic: true, isServerless: false, readme: '', dockerEntrypoint: [], dockerStartCmd: [] };
}

/** What `GET /v2/catalog/templates` lists, by `source`. */
export const PUBLIC_TEMPLATES: Array<{ source: 'official' | 'verified' | 'community'; template: EmulatedTemplate }> = [
  { source: 'official', template: template('runpod-torch-v240', 'Runpod Pytorch 2.4.0', 'runpod/pytorch:2.4.0-py3.11-cuda12.4.1-devel-ubuntu22.04', 'NVIDIA', ['8888/http', '22/tcp']) },
  { source: 'official', template: template('runpod-ubuntu', 'Runpod Ubuntu', 'runpod/base:0.6.2-cpu', 'CPU', ['22/tcp']) },
  { source: 'verified', template: template('vllm-openai', 'vLLM OpenAI server', 'vllm/vllm-openai:v0.6.3', 'NVIDIA', ['8000/http']) },
  { source: 'community', template: template('comfyui-community', 'ComfyUI', 'someone/comfyui:cu124', 'NVIDIA', ['8188/http']) },
];

/** A public template by id, or undefined. */
export const publicTemplate = (id: string): EmulatedTemplate | undefined => PUBLIC_TEMPLATES.find((t) => t.template.id === id)?.template;

/** The template a pod names: the account's own, else one of the platform's public ones. */
export const templateFor = (account: { readonly templates: ReadonlyMap<string, EmulatedTemplate> }, id: string): EmulatedTemplate | undefined => account.templates.get(id) ?? publicTemplate(id);
