/* Fuzzes the loader and the writer.
 *
 * Any input may fail to load, but then with a status and a non-empty message.
 * An input that loads must save, and its saved text must reload and re-save
 * byte-identical (docs/format.md: "A file written by sballoc reloads to the
 * same model and re-saves byte-identical"). A broken promise aborts, which
 * libFuzzer reports as a crash with the input. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/json.h"
#include "sballoc/bir.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const sba_error *err)
{
    fprintf(stderr, "fuzz_load: %s", what);
    if (err) fprintf(stderr, ": %s: %s: %s", sba_status_name(err->code), err->path, err->message);
    fprintf(stderr, "\n");
    abort();
}

static void check_error(sba_status st, const sba_error *err)
{
    if (st == SBA_OK || err->code != st) fail("a failure without its status", err);
    if (err->message[0] == '\0') fail("an error without a message", err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_error_t je;
    json_t *j = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &je);
    sba_json_doc *d = sba_json_parse((const char *)data, size, 0, NULL, NULL, NULL);
    if (!j != !d) {
        fprintf(stderr, "jansson: %s\n", j ? "accepts" : je.text);
        fail(d ? "base/json accepts what jansson rejects" : "base/json rejects what jansson accepts", NULL);
    }
    json_decref(j);
    sba_json_doc_free(d);
    sba_error err;
    bir_module *m = bir_load_buffer((const char *)data, size, "fuzz", NULL, &err);
    if (!m) {
        check_error(err.code, &err);
        return 0;
    }
    char *text1, *text2;
    size_t len1, len2;
    sba_status st = bir_save_buffer(m, &text1, &len1, &err);
    if (st != SBA_OK) {
        /* The writer refuses only what the loader refuses too. */
        if (err.code != SBA_ERR_NOMEM) fail("a module that loads does not save", &err);
        check_error(st, &err);
        bir_module_free(m);
        return 0;
    }
    bir_module *m2 = bir_load_buffer(text1, len1, "fuzz-saved", NULL, &err);
    if (!m2) {
        fprintf(stderr, "%.*s\n", (int)(len1 < 4096 ? len1 : 4096), text1);
        fail("the saved text does not reload", &err);
    }
    if (bir_save_buffer(m2, &text2, &len2, &err) != SBA_OK) fail("the reloaded module does not save", &err);
    if (len1 != len2 || memcmp(text1, text2, len1) != 0) {
        fprintf(stderr, "first save:\n%.*s\nsecond save:\n%.*s\n", (int)len1, text1, (int)len2, text2);
        fail("the re-saved text differs", NULL);
    }
    bir_free_text(m2, text2);
    bir_free_text(m, text1);
    bir_module_free(m2);
    bir_module_free(m);
    return 0;
}
