import { join } from 'node:path';
import { Answer, ClusterConfig, inClusterConfig, KubeApi, serverUrl } from '../../src/gate/api';
import { KubeApiStandIn } from '../support/kube-api';
import { aNodePool } from '../support/karpenter';

describe('inClusterConfig: the API server as client-go finds it in a pod', () => {
  it('reads KUBERNETES_SERVICE_HOST and _PORT and the ServiceAccount folder', () => {
    const config = inClusterConfig({ KUBERNETES_SERVICE_HOST: '10.100.0.1', KUBERNETES_SERVICE_PORT: '443' });
    expect(config).toEqual({ host: '10.100.0.1', port: '443', tokenFile: '/var/run/secrets/kubernetes.io/serviceaccount/token', caFile: '/var/run/secrets/kubernetes.io/serviceaccount/ca.crt' });
    expect(serverUrl(config as ClusterConfig)).toBe('https://10.100.0.1:443');
  });

  it('puts an IPv6 address in brackets, as net.JoinHostPort', () => {
    expect(serverUrl(inClusterConfig({ KUBERNETES_SERVICE_HOST: 'fd00:10:96::1', KUBERNETES_SERVICE_PORT: '443' }) as ClusterConfig)).toBe('https://[fd00:10:96::1]:443');
  });

  it('reads the ServiceAccount folder named by GATE_SERVICEACCOUNT_DIR instead', () => {
    expect(inClusterConfig({ KUBERNETES_SERVICE_HOST: 'h', KUBERNETES_SERVICE_PORT: '1', GATE_SERVICEACCOUNT_DIR: '/tmp/sa' })).toMatchObject({ tokenFile: '/tmp/sa/token', caFile: '/tmp/sa/ca.crt' });
  });

  it('fails when the service variables are not set: not in a pod', () => {
    expect(inClusterConfig({ KUBERNETES_SERVICE_HOST: '10.100.0.1' })).toEqual({ problem: expect.stringMatching(/^KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set/) });
  });
});

describe('KubeApi: GET against the API server stand-in', () => {
  let api: KubeApiStandIn;
  let client: KubeApi;
  const logged: string[] = [];
  beforeEach(async () => {
    api = await KubeApiStandIn.start();
    client = new KubeApi(inClusterConfig(api.env()) as ClusterConfig, (l) => logged.push(l));
  });
  afterEach(async () => {
    client.close();
    await api.close();
  });

  const pool = '/apis/karpenter.sh/v1/nodepools/web';

  it('answers the object, trusting the CA of the ServiceAccount folder', async () => {
    api.put(aNodePool('web'));
    const a = await client.get(pool);
    expect(a).toMatchObject({ kind: 'ok', body: { kind: 'NodePool', metadata: { name: 'web' } } });
    expect(api.requests).toEqual([{ method: 'GET', url: pool, status: 200 }]);
  });

  it('answers missing on 404', async () => {
    expect(await client.get(pool)).toEqual({ kind: 'missing' });
  });

  it('reads the token on every request: a rotated token is used at once', async () => {
    api.put(aNodePool('web'));
    api.rotateToken('token-2');
    expect((await client.get(pool)).kind).toBe('ok');
  });

  it('answers denied on 401 (a token the API server does not accept) and 403, with the API server\'s message', async () => {
    api.writeWrongToken();
    expect(await client.get(pool)).toEqual({ kind: 'denied', status: '401 Unauthorized', message: 'Unauthorized' });
    api.rotateToken('token-3');
    api.script(/nodepools/, 403);
    expect(await client.get(pool)).toEqual<Answer>({ kind: 'denied', status: '403 Forbidden', message: expect.stringMatching(/forbidden: User "system:serviceaccount:karpenter:karpenter-gitops-drift-gate"/) });
  });

  it('answers retry on 503, 500, 409 and 429 (with Retry-After), with the API server\'s message', async () => {
    api.script(/nodepools/, 503, 500, 409, 429);
    expect(await client.get(pool)).toEqual({ kind: 'retry', reason: '503 Service Unavailable: the server is currently unable to handle the request' });
    expect(await client.get(pool)).toEqual({ kind: 'retry', reason: expect.stringMatching(/^500 Internal Server Error: an error on the server/) });
    expect(await client.get(pool)).toEqual({ kind: 'retry', reason: expect.stringMatching(/^409 Conflict: the object has been modified/) });
    expect(await client.get(pool)).toEqual({ kind: 'retry', reason: '429 Too Many Requests: too many requests, please try again later', retryAfterSeconds: 1 });
  });

  it('answers retry, saying so, on an unexpected status', async () => {
    api.script(/nodepools/, 400);
    expect(await client.get(pool)).toEqual({ kind: 'retry', reason: '400 Bad Request (unexpected): scripted 400' });
  });

  it('answers retry on a network error', async () => {
    const nobody = new KubeApi({ ...(inClusterConfig(api.env()) as ClusterConfig), port: '1' }, (l) => logged.push(l));
    expect(await nobody.get(pool)).toEqual({ kind: 'retry', reason: expect.stringMatching(/ECONNREFUSED/) });
    nobody.close();
  });

  it('answers retry when the token cannot be read', async () => {
    const sa = inClusterConfig({ ...api.env(), GATE_SERVICEACCOUNT_DIR: join(api.serviceAccountDir, 'nowhere') }) as ClusterConfig;
    const lost = new KubeApi(sa, (l) => logged.push(l));
    expect(await lost.get(pool)).toEqual({ kind: 'retry', reason: expect.stringMatching(/^cannot read the ServiceAccount token .*nowhere\/token: ENOENT/) });
    lost.close();
  });

  it('uses the system\'s CAs when the CA file cannot be read (as client-go), and then does not trust the stand-in', async () => {
    const noCa = new KubeApi({ ...(inClusterConfig(api.env()) as ClusterConfig), caFile: join(api.serviceAccountDir, 'missing.crt') }, (l) => logged.push(l));
    expect(logged).toContainEqual(expect.stringMatching(/^cannot read the cluster CA .*missing\.crt \(ENOENT.*\): using the system's CAs$/));
    expect(await noCa.get(pool)).toEqual({ kind: 'retry', reason: expect.stringMatching(/self-signed certificate/) });
    noCa.close();
  });
});
