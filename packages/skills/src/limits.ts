/** The file every skill package holds, spelled exactly so. */
export const SKILL_FILE = "SKILL.md";

/** Agent Skills specification bounds, in characters (Unicode code points). */
export const MAX_NAME_LENGTH = 64;
export const MAX_DESCRIPTION_LENGTH = 1024;
export const MAX_COMPATIBILITY_LENGTH = 500;

/** Lower-case letters and digits in groups joined by single hyphens. */
export const SKILL_NAME_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** Root names become the first half of a qualified id, so they may not contain `/`. */
export const ROOT_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** Discovery reads at most this many bytes of a SKILL.md: the frontmatter must close within them. */
export const MAX_FRONTMATTER_BYTES = 64 * 1024;

/** Largest SKILL.md discovery admits and activation reads. */
export const DEFAULT_MAX_SKILL_BYTES = 256 * 1024;

/** Largest total of activated instructions one task holds. */
export const DEFAULT_MAX_CONTEXT_BYTES = 256 * 1024;

/** Directory entries one root may hold before discovery stops listing it. */
export const DEFAULT_MAX_ENTRIES_PER_ROOT = 10_000;

/**
 * The `yaml` package's expansion bound: the count of alias resolutions weighted by the size of
 * what they point at. A billion-laughs document fails at a few hundred nodes, not at a gigabyte.
 */
export const MAX_YAML_ALIAS_COUNT = 100;

/** The specification recommends keeping SKILL.md under 500 lines; longer bodies get a warning. */
export const RECOMMENDED_MAX_LINES = 500;
