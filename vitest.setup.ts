// The SDK's Node-20 end-of-support notice is noise in test output (Lambda runs Node 22).
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
