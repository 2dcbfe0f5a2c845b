package sqlstore

// applicationID marks a SQLite file as a cordis definition store ("CDEF").
const applicationID = 0x43444546

// migrations are the schema's forward steps: migrations[i] takes user_version i to i+1.
// A released step is never edited; a change to the schema is a new step at the end.
var migrations = []string{
	// 1: the definitions, grants, latest attempts and counters.
	`CREATE TABLE counters (
		name  TEXT PRIMARY KEY,
		value INTEGER NOT NULL
	) STRICT;
	INSERT INTO counters (name, value) VALUES ('plugin', 0), ('package', 0), ('run', 0), ('approval', 0);
	CREATE TABLE plugins (
		n       INTEGER PRIMARY KEY, -- the N of <prefix>-N, in creation order
		id      TEXT NOT NULL UNIQUE,
		session TEXT NOT NULL,
		prefix  TEXT NOT NULL,
		created TEXT NOT NULL,
		current TEXT NOT NULL DEFAULT '',
		next    TEXT NOT NULL DEFAULT '',
		future  INTEGER NOT NULL DEFAULT 0, -- the grant for future versions
		latest  TEXT                        -- the latest attempt, JSON
	) STRICT;
	CREATE INDEX plugins_session ON plugins (session, n);
	CREATE TABLE packages (
		n       INTEGER PRIMARY KEY, -- the N of pkg-N
		plugin  INTEGER NOT NULL REFERENCES plugins (n) ON DELETE CASCADE,
		name    TEXT NOT NULL,
		purpose TEXT NOT NULL,
		host    TEXT,
		client  TEXT,
		created TEXT NOT NULL
	) STRICT;
	CREATE INDEX packages_plugin ON packages (plugin, n);
	CREATE TABLE grants (
		seq     INTEGER PRIMARY KEY,
		plugin  INTEGER NOT NULL REFERENCES plugins (n) ON DELETE CASCADE,
		package INTEGER NOT NULL REFERENCES packages (n) ON DELETE CASCADE,
		granted TEXT NOT NULL,
		UNIQUE (plugin, package)
	) STRICT;`,
	// 2: whether a Plugin was running (for restarts at boot), and the revocation log.
	`ALTER TABLE plugins ADD COLUMN running INTEGER NOT NULL DEFAULT 0;
	CREATE TABLE revocations (
		seq     INTEGER PRIMARY KEY,
		plugin  INTEGER NOT NULL REFERENCES plugins (n) ON DELETE CASCADE,
		package TEXT NOT NULL, -- '' for the grant for future versions
		revoked TEXT NOT NULL
	) STRICT;
	CREATE INDEX revocations_plugin ON revocations (plugin);`,
}

// SchemaVersion is the schema version this build writes.
const SchemaVersion = 2

func init() {
	if len(migrations) != SchemaVersion {
		panic("sqlstore: SchemaVersion does not match the migrations")
	}
}
