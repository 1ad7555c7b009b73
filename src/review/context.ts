/**
 * Both sides of a review and the lookups a classification needs beyond the changed files
 * (who syncs a file, which pools use a class, what the tenancy policy guards), each read
 * lazily: most pull requests never ask.
 */
import { nodeClassOf, obj } from './body';
import { Guarded, guardedByPool, isTenancy } from './tenancy';
import { FolderIndex, GeneratedTree, Resource, sourcePaths } from './tree';
import { clusterOfPath } from '../output/layout';

/** What each side holds and how to look further into it, read lazily. */
export class ReviewContext {
  private readonly owners = new Map<GeneratedTree, FolderIndex<Resource>>();
  private readonly pools = new Map<string, Map<string, Resource[]>>();
  private poolsBefore?: Map<string, Resource>;
  private readonly guarded = new Map<string, Map<string, Guarded>>();

  /**
   * @param before the resources of the changed files in the base tree, by key
   * @param after the resources of the changed files in the head tree, by key
   */
  public constructor(
    public readonly base: GeneratedTree,
    public readonly head: GeneratedTree,
    public readonly before: ReadonlyMap<string, Resource>,
    public readonly after: ReadonlyMap<string, Resource>,
  ) {}

  /**
   * The Applications of a tree that sync a file. The first call reads every
   * Application of the tree: only a pull request that moves files or repoints an
   * Application asks.
   */
  public ownersOf(tree: GeneratedTree, file: string): Resource[] {
    let index = this.owners.get(tree);
    if (!index) {
      const apps = [...tree.files].filter(([, text]) => text.includes('Application'))
        .flatMap(([f]) => tree.resourcesIn(f).filter((r) => r.kind === 'Application'));
      index = new FolderIndex(apps.map((app) => ({ owner: app, paths: sourcePaths(app.body) })));
      this.owners.set(tree, index);
    }
    return index.ownersOf(file);
  }

  /** The Application of this key in the head tree, if it is still there. */
  public headVersion(app: Resource): Resource | undefined {
    return this.after.get(app.key) ?? (this.base.files.get(app.file) === this.head.files.get(app.file) ? app : undefined);
  }

  /**
   * The pools a cluster's tenancy objects guard, in the base (`before`) or the head (`after`)
   * tree: its parameters and policy live in one file, so when one changed, all of them are in
   * the changed files' resources.
   */
  public tenancyOf(side: 'before' | 'after', cluster: string): Map<string, Guarded> {
    const key = `${side}\0${cluster}`;
    let found = this.guarded.get(key);
    if (!found) {
      found = guardedByPool([...this[side].values()].filter((r) => r.cluster === cluster && isTenancy(r)));
      this.guarded.set(key, found);
    }
    return found;
  }

  /** Every NodePool of a cluster in the head tree. */
  public headPools(cluster: string): Resource[] {
    return [...this.head.files].filter(([f, text]) => clusterOfPath(f) === cluster && text.includes('NodePool'))
      .flatMap(([f]) => this.head.resourcesIn(f).filter((r) => r.kind === 'NodePool'));
  }

  /** The base NodePool (from a changed file) that uses an EC2NodeClass. */
  public basePoolUsing(nodeClass: Resource): Resource | undefined {
    if (!this.poolsBefore) {
      this.poolsBefore = new Map();
      for (const p of this.before.values()) if (p.kind === 'NodePool') this.poolsBefore.set(`${p.cluster}\0${nodeClassOf(p)}`, p);
    }
    return this.poolsBefore.get(`${nodeClass.cluster}\0${nodeClass.name}`);
  }

  /**
   * The head NodePools of a cluster that use an EC2NodeClass: those in changed files,
   * and those in unchanged files that mention the class's name (only those are read).
   */
  public poolsUsing(nodeClass: Resource): Resource[] {
    let byClass = this.pools.get(nodeClass.cluster);
    if (!byClass) {
      byClass = this.poolsByClass(nodeClass.cluster);
      this.pools.set(nodeClass.cluster, byClass);
    }
    return byClass.get(nodeClass.name) ?? [];
  }

  private poolsByClass(cluster: string): Map<string, Resource[]> {
    const byClass = new Map<string, Resource[]>();
    const changedClasses = new Set([...this.after.values()].filter((r) => r.kind === 'EC2NodeClass' && r.cluster === cluster).map((r) => r.name));
    const candidates = [...this.after.values()].filter((r) => r.kind === 'NodePool' && r.cluster === cluster);
    for (const [file, text] of this.head.files) {
      if (clusterOfPath(file) !== cluster || this.base.files.get(file) !== text || !text.includes('NodePool')) continue;
      if (![...names(text)].some((n) => changedClasses.has(n))) continue;
      candidates.push(...this.head.resourcesIn(file).filter((r) => r.kind === 'NodePool'));
    }
    for (const pool of candidates) {
      const ref = obj(obj(obj(obj(pool.body.spec).template).spec).nodeClassRef);
      if (ref.kind !== undefined && ref.kind !== 'EC2NodeClass') continue;
      const name = String(ref.name);
      byClass.set(name, [...(byClass.get(name) ?? []), pool]);
    }
    return byClass;
  }
}

/** Every `name:` value in a YAML text: a cheap test of whether a file may mention a name. */
function names(text: string): Set<string> {
  return new Set([...text.matchAll(/name:\s*["']?([^\s"'#]+)/g)].map((m) => m[1]));
}
