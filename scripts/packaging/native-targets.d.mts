// Types for native-targets.mjs (plain JavaScript so electron-builder's hook runs without a loader).
export interface NativeTarget {
  keyring: string
  sqliteVec: string | null
  engine: string
  engineDir: string
  betterSqlite: string
}
export declare const NATIVE_TARGETS: Record<string, NativeTarget>
export declare function nodePlatform(os: string): string
export declare function archName(arch: number | string): string
export declare function missingComponents(platform: string, arch: string): string[]
export declare function targetPackages(platform: string, arch: string, lock: { packages?: Record<string, { version?: string }> }): string[]
export declare function binaryArch(bytes: Uint8Array): { format: 'elf' | 'macho' | 'pe'; archs: string[] } | undefined
export declare function checkPackedNatives(target: { resourcesDir: string; platform: string; arch: string }): { errors: string[]; warnings: string[] }
export declare function elfNeeded(bytes: Buffer): string[]
