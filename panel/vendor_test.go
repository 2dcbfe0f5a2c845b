package panel

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"strings"
	"testing"
)

// TestVendorChecksums checks the vendored React against the committed SHA256SUMS (written
// by assets/vendor/refresh.sh), and that every vendored file is listed: a hand edit or a
// partial refresh fails here.
func TestVendorChecksums(t *testing.T) {
	sums, err := os.ReadFile("assets/vendor/SHA256SUMS")
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(string(sums)))
	for sc.Scan() {
		want, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("SHA256SUMS line %q is not \"<sum>  <file>\"", sc.Text())
		}
		b, err := fs.ReadFile(embedded, "assets/vendor/"+name)
		if err != nil {
			t.Fatalf("%s is listed but not embedded: %v", name, err)
		}
		got := sha256.Sum256(b)
		if hex.EncodeToString(got[:]) != want {
			t.Errorf("%s: sha256 %x, SHA256SUMS says %s; run bash panel/assets/vendor/refresh.sh instead of editing it", name, got, want)
		}
		listed[name] = true
	}
	entries, err := fs.ReadDir(embedded, "assets/vendor")
	if err != nil {
		t.Fatal(err)
	}
	for _, en := range entries {
		if n := en.Name(); n != "SHA256SUMS" && n != "refresh.sh" && !listed[n] {
			t.Errorf("assets/vendor/%s is not in SHA256SUMS", n)
		}
	}
	for _, n := range []string{"react.production.min.js", "react-dom.production.min.js", "LICENSE.react", "LICENSE.react-dom"} {
		if !listed[n] {
			t.Errorf("%s is missing from SHA256SUMS", n)
		}
	}
}
