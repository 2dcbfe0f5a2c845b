package page

import (
	"crypto/rand"
	"crypto/subtle"
)

// NewSecret returns an unguessable token: a ticket, an answer token, a capability or a
// page id.
func NewSecret() string { return rand.Text() }

// SameSecret reports whether got is the secret want, in time that does not depend on
// where they differ. An empty want matches nothing: a secret never minted authorises
// nobody.
func SameSecret(got, want string) bool {
	return want != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}
