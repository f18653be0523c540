#ifndef CAB_CQRENCODE_SHIM_H
#define CAB_CQRENCODE_SHIM_H
#include <qrencode.h>
#endif
