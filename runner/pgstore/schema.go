package pgstore

// application marks a PostgreSQL schema as a cordis definition store, in its
// store_version table.
const application = "cordis definition store"

// versionTable is made before the first migration: the schema's version lives in it, so
// it is not a step of its own.
const versionTable = `CREATE TABLE store_version (
	application text NOT NULL,
	version     integer NOT NULL
);
INSERT INTO store_version (application, version) VALUES ('` + application + `', 0);`

// migrations are the schema's forward steps: migrations[i] takes version i to i+1. A
// released step is never edited; a change to the schema is a new step at the end.
var migrations = []string{
	// 1: the definitions, grants, revocations, latest attempts and counters.
	`CREATE TABLE counters (
		name  text PRIMARY KEY,
		value bigint NOT NULL CHECK (value >= 0) -- the last number minted
	);
	INSERT INTO counters (name, value) VALUES ('plugin', 0), ('package', 0), ('run', 0), ('approval', 0);
	CREATE TABLE plugins (
		n          bigint PRIMARY KEY, -- the N of <prefix>-N, in creation order
		id         text NOT NULL UNIQUE,
		session    text NOT NULL,
		prefix     text NOT NULL,
		created    timestamptz NOT NULL DEFAULT now(),
		defined_by text NOT NULL,      -- the Store that defined it (Plugin.Restored)
		current    bigint,             -- the N of pkg-N, or NULL
		next       bigint,
		future     boolean NOT NULL DEFAULT false, -- the grant for future versions
		running    boolean NOT NULL DEFAULT false,
		latest     json,               -- the latest attempt (json keeps a \u0000 that jsonb refuses)
		latest_pkg bigint,             -- its Package's N
		-- What a Listing shows besides the above, kept by every change so that a list
		-- reads no Package: the reference Package's name (next's, else current's, else
		-- the newest's), the number of Packages, and whether the latest attempt's
		-- Package has a client half.
		listing_name  text NOT NULL,
		package_count integer NOT NULL,
		latest_client boolean NOT NULL DEFAULT false
	);
	CREATE INDEX plugins_session ON plugins (session, n);
	CREATE TABLE packages (
		n       bigint PRIMARY KEY,    -- the N of pkg-N
		plugin  bigint NOT NULL REFERENCES plugins (n) ON DELETE CASCADE,
		name    text NOT NULL,
		purpose text NOT NULL,
		host    text,
		client  text,
		created timestamptz NOT NULL DEFAULT now()
	);
	CREATE INDEX packages_plugin ON packages (plugin, n);
	CREATE TABLE grants (
		seq     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
		plugin  bigint NOT NULL REFERENCES plugins (n) ON DELETE CASCADE,
		package bigint NOT NULL REFERENCES packages (n) ON DELETE CASCADE,
		granted timestamptz NOT NULL DEFAULT now(),
		UNIQUE (plugin, package)
	);
	CREATE TABLE revocations (
		seq     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
		plugin  bigint NOT NULL REFERENCES plugins (n) ON DELETE CASCADE,
		package text NOT NULL,         -- '' for the grant for future versions
		revoked timestamptz NOT NULL DEFAULT now()
	);
	CREATE INDEX revocations_plugin ON revocations (plugin);`,
	// 2: the sessions' leases: which Store (owner, its random token) runs a session's
	// Plugins until when, on the server's clock; fence counts the takeovers.
	`CREATE TABLE leases (
		session text PRIMARY KEY,
		owner   text NOT NULL,
		fence   bigint NOT NULL,
		expires timestamptz NOT NULL
	);
	CREATE INDEX plugins_running ON plugins (session) WHERE running;`,
}

// SchemaVersion is the schema version this build writes.
const SchemaVersion = 2

func init() {
	if len(migrations) != SchemaVersion {
		panic("pgstore: SchemaVersion does not match the migrations")
	}
}
