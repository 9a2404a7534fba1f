/* String hash map: see strmap.h. FNV-1a hashing, load factor at most 1/2. */
#include "base/strmap.h"

#include <string.h>

uint64_t sba_hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h ^ (h >> 29);
}

sba_strmap *sba_strmap_new(sba_arena *ar)
{
    sba_strmap *m = sba_arena_zalloc(ar, sizeof *m);
    if (m) m->ar = ar;
    return m;
}

static sba_strmap_slot *find(const sba_strmap *m, const char *key, uint64_t h)
{
    uint32_t mask = m->cap - 1;
    for (uint32_t i = (uint32_t)h & mask;; i = (i + 1) & mask) {
        sba_strmap_slot *s = &m->slots[i];
        if (!s->key || strcmp(s->key, key) == 0) return s;
    }
}

void *sba_strmap_get(const sba_strmap *m, const char *key)
{
    if (!m || m->cap == 0) return NULL;
    sba_strmap_slot *s = find(m, key, sba_hash_str(key));
    return s->key ? s->value : NULL;
}

static bool rehash(sba_strmap *m, uint32_t ncap)
{
    sba_strmap_slot *old = m->slots;
    uint32_t ocap = m->cap;
    sba_strmap_slot *slots = sba_arena_array(m->ar, ncap, sizeof *slots);
    if (!slots) return false;
    m->slots = slots;
    m->cap = ncap;
    for (uint32_t i = 0; i < ocap; i++)
        if (old[i].key) *find(m, old[i].key, sba_hash_str(old[i].key)) = old[i];
    return true;
}

bool sba_strmap_reserve(sba_strmap *m, uint32_t n)
{
    uint64_t want = 16;
    while (want < (uint64_t)n * 2) want *= 2;
    if (want <= m->cap) return true;
    if (want > (1u << 31)) return false;
    return rehash(m, (uint32_t)want);
}

int sba_strmap_put(sba_strmap *m, const char *key, void *value, void **existing)
{
    if ((uint64_t)(m->n + 1) * 2 > m->cap) {
        if (m->cap >= (1u << 31)) return -1;
        if (!rehash(m, m->cap ? m->cap * 2 : 16)) return -1;
    }
    uint64_t h = sba_hash_str(key);
    sba_strmap_slot *s = find(m, key, h);
    if (s->key) {
        if (existing) *existing = s->value;
        return 0;
    }
    s->key = key;
    s->value = value;
    m->n++;
    return 1;
}

/* ---- name index ---------------------------------------------------------- */

void sba_nameidx_init(sba_nameidx *m, sba_arena *ar)
{
    memset(m, 0, sizeof *m);
    m->ar = ar;
}

uint32_t sba_nameidx_get(const sba_nameidx *m, const char *key, sba_nameidx_name name, const void *array)
{
    if (m->cap == 0) return UINT32_MAX;
    uint32_t mask = m->cap - 1;
    for (uint32_t i = (uint32_t)sba_hash_str(key) & mask;; i = (i + 1) & mask) {
        uint32_t s = m->slots[i];
        if (!s) return UINT32_MAX;
        if (strcmp(name(array, s - 1), key) == 0) return s - 1;
    }
}

static void nameidx_place(uint32_t *slots, uint32_t cap, uint32_t i, const char *key)
{
    uint32_t mask = cap - 1, j = (uint32_t)sba_hash_str(key) & mask;
    while (slots[j]) j = (j + 1) & mask;
    slots[j] = i + 1;
}

static bool nameidx_rehash(sba_nameidx *m, uint32_t ncap, sba_nameidx_name name, const void *array)
{
    uint32_t *slots = sba_arena_array(m->ar, ncap, sizeof *slots);
    if (!slots) return false;
    for (uint32_t i = 0; i < m->cap; i++)
        if (m->slots[i]) nameidx_place(slots, ncap, m->slots[i] - 1, name(array, m->slots[i] - 1));
    m->slots = slots;
    m->cap = ncap;
    return true;
}

bool sba_nameidx_reserve(sba_nameidx *m, uint32_t n, sba_nameidx_name name, const void *array)
{
    uint64_t want = 16;
    while (want < (uint64_t)n * 2) want *= 2;
    if (want <= m->cap) return true;
    if (want > (1u << 31)) return false;
    return nameidx_rehash(m, (uint32_t)want, name, array);
}

bool sba_nameidx_add(sba_nameidx *m, uint32_t i, sba_nameidx_name name, const void *array)
{
    if ((uint64_t)(m->n + 1) * 2 > m->cap) {
        if (m->cap >= (1u << 31) || i == UINT32_MAX) return false;
        if (!nameidx_rehash(m, m->cap ? m->cap * 2 : 16, name, array)) return false;
    }
    nameidx_place(m->slots, m->cap, i, name(array, i));
    m->n++;
    return true;
}
