/* Growable buffers, the free functions of every wire value, and the names
 * of commands and statuses. */
#include <stdlib.h>
#include <string.h>

#include "wire_internal.h"

hs_status wire_buf_reserve(wire_buf *b, size_t extra, hs_error *err) {
    if (b->cap - b->len >= extra)
        return HS_OK;
    if (extra > SIZE_MAX - b->len)
        return hs_fail(err, HS_ERR_NOMEM, "buffer size overflow");
    size_t need = b->len + extra;
    size_t grown = b->cap + b->cap / 2;
    if (grown < b->cap)
        grown = SIZE_MAX;
    size_t cap = need > grown ? need : grown;
    if (cap < 256)
        cap = 256;
    uint8_t *data = realloc(b->data, cap);
    if (!data)
        return hs_fail(err, HS_ERR_NOMEM, "out of memory growing a buffer to %zu bytes", cap);
    b->data = data;
    b->cap = cap;
    return HS_OK;
}

void wire_buf_free(wire_buf *b) {
    if (!b)
        return;
    free(b->data);
    *b = (wire_buf){0};
}

void wire_ptr_list_free(wire_ptr_list *l) {
    if (!l)
        return;
    free(l->items);
    *l = (wire_ptr_list){0};
}

void wire_blobs_free(wire_blobs *b) {
    if (!b)
        return;
    wire_buf_free(&b->body);
    free(b->items);
    *b = (wire_blobs){0};
}

void wire_bitmap_free(wire_bitmap *b) {
    if (!b)
        return;
    free(b->bits);
    *b = (wire_bitmap){0};
}

void wire_con_desc_free(wire_con_desc *d) {
    if (!d)
        return;
    free(d->raw);
    free(d->package);
    free(d->module);
    free(d->name);
    *d = (wire_con_desc){0};
}

void wire_source_info_free(wire_source_info *s) {
    if (!s)
        return;
    free(s->name);
    free(s->closure_type_text);
    free(s->type);
    free(s->label);
    free(s->module);
    free(s->position);
    *s = (wire_source_info){0};
}

void wire_block_list_free(wire_block_list *l) {
    if (!l)
        return;
    wire_buf_free(&l->body);
    free(l->items);
    *l = (wire_block_list){0};
}

void wire_cc_free(wire_cc *cc) {
    if (!cc)
        return;
    free(cc->label);
    free(cc->module);
    free(cc->srcloc);
    *cc = (wire_cc){0};
}

hs_status wire_status_to_hs(uint16_t code) {
    switch (code) {
    case WIRE_STATUS_OKAY:
    case WIRE_STATUS_OKAY_CONTINUES: return HS_OK;
    case WIRE_STATUS_BAD_COMMAND: return HS_ERR_BAD_COMMAND;
    case WIRE_STATUS_ALREADY_PAUSED: return HS_ERR_ALREADY_PAUSED;
    case WIRE_STATUS_NOT_PAUSED: return HS_ERR_NOT_PAUSED;
    case WIRE_STATUS_NO_RESUME: return HS_ERR_NO_RESUME;
    case WIRE_STATUS_BAD_STACK: return HS_ERR_BAD_STACK;
    }
    return HS_ERR_PROTOCOL;
}

const char *wire_command_name(uint32_t cmd) {
    switch (cmd) {
    case WIRE_CMD_VERSION: return "VERSION";
    case WIRE_CMD_PAUSE: return "PAUSE";
    case WIRE_CMD_RESUME: return "RESUME";
    case WIRE_CMD_ROOTS: return "ROOTS";
    case WIRE_CMD_CLOSURES: return "CLOSURES";
    case WIRE_CMD_INFO_TABLES: return "INFO_TABLES";
    case WIRE_CMD_STACK_BITMAP: return "STACK_BITMAP";
    case WIRE_CMD_POLL: return "POLL";
    case WIRE_CMD_SAVED_OBJECTS: return "SAVED_OBJECTS";
    case WIRE_CMD_CON_DESC: return "CON_DESC";
    case WIRE_CMD_SOURCE_INFO: return "SOURCE_INFO";
    case WIRE_CMD_ALL_BLOCKS: return "ALL_BLOCKS";
    case WIRE_CMD_BLOCK: return "BLOCK";
    case WIRE_CMD_FUN_BITMAP: return "FUN_BITMAP";
    case WIRE_CMD_SRT: return "SRT";
    case WIRE_CMD_CCS: return "CCS";
    case WIRE_CMD_CC: return "CC";
    case WIRE_CMD_INDEX_TABLE: return "INDEX_TABLE";
    case WIRE_CMD_CCS_MAIN: return "CCS_MAIN";
    }
    return "unknown command";
}
