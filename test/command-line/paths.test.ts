import { join } from 'node:path';
import { UserPaths, userDir } from '../../src/command-line/paths';

describe('userDir: where the user ran npm', () => {
  it('is INIT_CWD when npm ran the script here', () => {
    expect(userDir({ INIT_CWD: '/home/me/platform/config', npm_package_json: join(process.cwd(), 'package.json') })).toBe('/home/me/platform/config');
    expect(userDir({ INIT_CWD: '/home/me/platform/config' })).toBe('/home/me/platform/config');
  });

  it('is the working directory without INIT_CWD', () => {
    expect(userDir({})).toBe(process.cwd());
  });

  it('ignores an INIT_CWD inherited from an npm script run elsewhere (a test spawning the tool in a temporary folder)', () => {
    expect(userDir({ INIT_CWD: '/home/me', npm_package_json: '/somewhere/else/package.json' })).toBe(process.cwd());
  });
});

describe('UserPaths', () => {
  const paths = new UserPaths('/repo/config');

  it('resolves what the user typed from their folder', () => {
    expect(paths.resolve('platform.yaml')).toBe('/repo/config/platform.yaml');
    expect(paths.resolve('/abs/platform.yaml')).toBe('/abs/platform.yaml');
  });

  it('shows paths from their folder, or absolute when that is shorter', () => {
    expect(paths.show('/repo/config/platform.yaml')).toBe('platform.yaml');
    expect(paths.show('/repo/dist/x.yaml')).toBe('../dist/x.yaml');
    expect(paths.show('/repo/config')).toBe('.');
    expect(paths.show('/tmp/a')).toBe('/tmp/a');
  });
});
