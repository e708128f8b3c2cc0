package jobs

import (
	"sync"
	"time"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// Authenticating a request must not cost a store write, and should not cost a
// store read every time either: an API client polling a job every 2 s would
// otherwise write its key's last_used_at on every poll (a DynamoDB write unit
// and a SQLite writer-lock each time). Two rules, both per process (one
// Lambda instance, or the local server):
//
//   - A key found by its hash is kept for APIKeyCacheTTL. A revocation made
//     through this process removes it at once; one made through another
//     process (another Lambda instance) is seen once the entry expires, so a
//     revoked key fails everywhere within the TTL (5 s by default). Unknown
//     hashes are not kept: a key created a moment ago works at once.
//   - last_used_at is written at most once per KeyUseRecordInterval per key,
//     so the stored time is at most that much older than the key's last use.
const (
	DefaultAPIKeyCacheTTL = 5 * time.Second
	KeyUseRecordInterval  = time.Minute
	// maxCachedKeys bounds the cache; when full, expired entries go first and
	// then everything, which only costs re-reads.
	maxCachedKeys = 10000
)

type cachedKey struct {
	key     callscribe.APIKey
	expires time.Time
}

// keyCache holds recently authenticated keys and when each key's use was
// last written; see the rules above.
type keyCache struct {
	ttl time.Duration

	mu          sync.Mutex
	byHash      map[string]cachedKey
	hashByID    map[string]string
	useRecorded map[string]time.Time // key id -> time of the last last_used_at write
}

func newKeyCache(ttl time.Duration) *keyCache {
	return &keyCache{ttl: ttl, byHash: map[string]cachedKey{}, hashByID: map[string]string{}, useRecorded: map[string]time.Time{}}
}

// lookup returns a copy of the cached key for hash, if it has not expired.
func (c *keyCache) lookup(hash string, now time.Time) (*callscribe.APIKey, bool) {
	if c.ttl <= 0 {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byHash[hash]
	if !ok || !now.Before(e.expires) {
		return nil, false
	}
	k := e.key
	return &k, true
}

// remember keeps a key found in the store.
func (c *keyCache) remember(k *callscribe.APIKey, now time.Time) {
	if c.ttl <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.byHash) >= maxCachedKeys {
		c.evict(now)
	}
	c.byHash[k.Hash] = cachedKey{key: *k, expires: now.Add(c.ttl)}
	c.hashByID[k.ID] = k.Hash
}

func (c *keyCache) evict(now time.Time) {
	for h, e := range c.byHash {
		if !now.Before(e.expires) {
			delete(c.byHash, h)
			delete(c.hashByID, e.key.ID)
		}
	}
	if len(c.byHash) >= maxCachedKeys {
		clear(c.byHash)
		clear(c.hashByID)
	}
	if len(c.useRecorded) >= maxCachedKeys {
		clear(c.useRecorded)
	}
}

// forget drops a revoked key.
func (c *keyCache) forget(keyID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if h, ok := c.hashByID[keyID]; ok {
		delete(c.byHash, h)
		delete(c.hashByID, keyID)
	}
	delete(c.useRecorded, keyID)
}

// shouldRecordUse reports whether the key's use at now is to be written, and
// if so notes it as written: at most one write per KeyUseRecordInterval.
func (c *keyCache) shouldRecordUse(keyID string, now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if last, ok := c.useRecorded[keyID]; ok && now.Sub(last) < KeyUseRecordInterval {
		return false
	}
	c.useRecorded[keyID] = now
	return true
}
