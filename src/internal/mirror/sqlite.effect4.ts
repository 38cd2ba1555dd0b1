/**
 * The mirror's SQLite layer, which only the Effect 3 edition has (`sqlite.effect3.ts`): no stable
 * Effect 4 SQLite driver is published, so this edition's `DesignMirror` has no `layerSqlite`.
 */
export {}
